/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.awaitBatch;
import static io.pgque.client.ClientTesting.queryLong;
import static io.pgque.client.ClientTesting.tick;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The everyday path: create, subscribe, send, tick, receive whole batches, ack, nack, inspect. */
class ProduceConsumeIT {

    private static DataSource ds;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        ds = ClientTesting.newDatabase("client_produce").installEngine().superuser();
        pq = PgQue.using(ds);
    }

    /** A fresh queue with one subscribed consumer {@code c}. */
    private static String queueWithConsumer(String queue) {
        assertTrue(pq.queues().create(queue));
        assertTrue(pq.consumer().subscribe(queue, "c"));
        return queue;
    }

    @Test
    void createAndSubscribeReportWhetherTheyDidSomething() {
        assertTrue(pq.queues().create("q_create"));
        assertFalse(pq.queues().create("q_create"));
        assertTrue(pq.consumer().subscribe("q_create", "c"));
        assertFalse(pq.consumer().subscribe("q_create", "c"));
        assertTrue(pq.consumer().unsubscribe("q_create", "c"));
        assertFalse(pq.consumer().unsubscribe("q_create", "c"));
        assertTrue(pq.queues().drop("q_create"));
        assertTrue(pq.queues().info("q_create").isEmpty());
    }

    @Test
    void dropRefusesWhileSubscribedUnlessForced() {
        queueWithConsumer("q_drop");
        assertThrows(PgQueException.class, () -> pq.queues().drop("q_drop"));
        assertTrue(pq.queues().drop("q_drop", true));
        assertTrue(pq.queues().info("q_drop").isEmpty());
    }

    @Test
    void sendAndSendBatchReturnIdsAlignedWithTheirEvents() {
        String q = queueWithConsumer("q_ids");
        long single = pq.producer().send(q, "single", "s");
        List<Event> events = List.of(
                Event.of("a", "pa").withPartitionKey("k1").withExtra2("x2").withExtra3("x3").withExtra4("x4"),
                Event.of("pb"),
                Event.of("c", null).withPartitionKey("k3"));
        List<Long> ids = pq.producer().sendBatch(q, events);
        assertEquals(3, ids.size());
        HashSet<Long> distinct = new HashSet<>(ids);
        distinct.add(single);
        assertEquals(4, distinct.size(), "every event has its own id");
        assertTrue(pq.producer().sendBatch(q, List.of()).isEmpty());

        Batch batch = awaitBatch(pq, q, "c");
        assertEquals(4, batch.size());
        Message s = byId(batch, single);
        assertEquals("single", s.type());
        assertEquals("s", s.payload());
        assertEquals(0, s.retryCount());
        assertNotNull(s.createdAt());
        Message a = byId(batch, ids.get(0));
        assertEquals("a", a.type());
        assertEquals("pa", a.payload());
        assertEquals("k1", a.partitionKey());
        assertEquals("x2", a.extra2());
        assertEquals("x3", a.extra3());
        assertEquals("x4", a.extra4());
        Message b = byId(batch, ids.get(1));
        assertEquals("default", b.type());
        assertEquals("pb", b.payload());
        assertNull(b.partitionKey());
        Message c = byId(batch, ids.get(2));
        assertEquals("c", c.type());
        assertNull(c.payload());
        assertEquals("k3", c.partitionKey());
        assertTrue(batch.messages().stream().allMatch(m -> m.batchId() == batch.batchId()));
        pq.consumer().ack(batch);
    }

    /**
     * sendAt and sendBatchAt: what is due goes out at once with its event id; the rest is held
     * (a scheduled id, no event id) and arrives once due, with its key and extras; an unknown
     * queue is the usual QueueNotFoundException.
     */
    @Test
    void sendAtSendsWhatIsDueAndHoldsTheRestUntilItIs() {
        String q = queueWithConsumer("q_send_at");
        Instant due = Instant.now().plusMillis(500);
        SendAtResult now = pq.producer().sendAt(q, Event.of("t", "now"), null);
        List<SendAtResult> batch = pq.producer().sendBatchAt(q, List.of(
                new DelayedEvent(Event.of("t", "later").withPartitionKey("k").withExtra4("x4"), due),
                new DelayedEvent(Event.of("t", "past"), Instant.now().minusSeconds(3600))));
        assertFalse(now.held());
        assertTrue(now.eventId().isPresent() && now.scheduledId().isEmpty());
        assertTrue(batch.get(0).held() && batch.get(0).eventId().isEmpty());
        assertFalse(batch.get(1).held());

        Batch first = awaitBatch(pq, q, "c");
        assertEquals(List.of("now", "past"), first.messages().stream().map(Message::payload).toList());
        pq.consumer().ack(first);
        Batch later = awaitBatch(pq, q, "c");
        assertEquals(1, later.messages().size());
        Message m = later.messages().get(0);
        assertEquals("later", m.payload());
        assertEquals("k", m.partitionKey());
        assertEquals("x4", m.extra4());
        assertFalse(m.createdAt().isBefore(due), "not before it was due");
        pq.consumer().ack(later);

        assertThrows(QueueNotFoundException.class,
                () -> pq.producer().sendAt("no_such_queue", Event.of("x"), Instant.now().plusSeconds(60)));
    }

    /** A payload arrives as the bytes the database sent: UTF-8 whatever it holds, decoded only on request. */
    @Test
    void payloadBytesAreTheTextInUtf8() {
        String q = queueWithConsumer("q_bytes");
        String text = "{\"name\":\"Jürgen \u65e5\u672c \uD83D\uDE00\",\"path\":\"C:\\\\tmp\",\"q\":\"\\\"\"}";
        long id = pq.producer().send(q, "t", text);
        Batch batch = awaitBatch(pq, q, "c");
        Message m = byId(batch, id);
        assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), m.payloadBytes());
        assertEquals(text, m.payload());
        assertEquals(new Message(m.msgId(), m.batchId(), m.type(), text, m.retryCount(), m.createdAt(), m.extra1(),
                m.extra2(), m.extra3(), m.extra4()), m, "equal to the message made from the text");
        pq.consumer().ack(batch);
    }

    @Test
    void receiveReturnsAWholeBatchLargerThanThePageInIdOrder() {
        String q = queueWithConsumer("q_big");
        List<Event> events = IntStream.range(0, 2500).mapToObj(i -> Event.of("n", Integer.toString(i)))
                .collect(Collectors.toList());
        List<Long> ids = pq.producer().sendBatch(q, events);
        tick(pq, q);

        Batch batch = pq.consumer().receive(q, "c", 1000).orElseThrow();
        assertEquals(2500, batch.size());
        assertEquals(new HashSet<>(ids), batch.messages().stream().map(Message::msgId).collect(Collectors.toSet()));
        for (int i = 1; i < batch.size(); i++) {
            assertTrue(batch.messages().get(i - 1).msgId() < batch.messages().get(i).msgId(), "msg_id order");
        }
        for (int i = 0; i < ids.size(); i++) {
            assertEquals(Integer.toString(i), byId(batch, ids.get(i)).payload());
        }

        Batch again = pq.consumer().receive(q, "c", 1000).orElseThrow();
        assertEquals(batch, again, "until acked, the same batch comes back");

        pq.consumer().ack(batch.batchId());
        assertThrows(BatchNotFoundException.class, () -> pq.consumer().ack(batch.batchId()));
        tick(pq, q);
        assertTrue(pq.consumer().receive(q, "c", 1000).isEmpty(), "nothing after the acked batch");
    }

    @Test
    void batchOfExactlyTwoPagesIsReadCompletely() {
        String q = queueWithConsumer("q_two_pages");
        pq.producer().sendBatch(q, IntStream.range(0, 20).mapToObj(i -> Event.of("p" + i)).collect(Collectors.toList()));
        tick(pq, q);
        Batch batch = pq.consumer().receive(q, "c", 10).orElseThrow();
        assertEquals(20, batch.size());
        pq.consumer().ack(batch);
    }

    @Test
    void nackedMessageComesBackWithItsRetryCount() {
        String q = queueWithConsumer("q_nack");
        long keep = pq.producer().send(q, "t", "ok");
        long retry = pq.producer().send(q, Event.of("t", "again").withPartitionKey("k"));
        Batch first = awaitBatch(pq, q, "c");
        assertEquals(2, first.size());
        pq.consumer().nack(byId(first, retry), Duration.ZERO, "try later");
        pq.consumer().ack(first);

        assertTrue(pq.operations().maintRetryEvents() >= 1);
        Batch second = awaitBatch(pq, q, "c");
        assertEquals(1, second.size());
        Message m = second.messages().get(0);
        assertEquals(retry, m.msgId());
        assertEquals(1, m.retryCount());
        assertTrue(m.isRetry());
        assertEquals("again", m.payload());
        assertEquals("k", m.partitionKey());
        assertFalse(second.messages().stream().anyMatch(x -> x.msgId() == keep));
        pq.consumer().ack(second);
    }

    @Test
    void nackBeyondMaxRetriesGoesToTheDeadLetterTable() {
        String q = queueWithConsumer("q_dead");
        pq.queues().setMaxRetries(q, 0);
        long id = pq.producer().send(q, "t", "poison");
        Batch batch = awaitBatch(pq, q, "c");
        pq.consumer().nack(batch.batchId(), byId(batch, id), Duration.ZERO, "poison");
        pq.consumer().ack(batch);
        pq.operations().maintRetryEvents();
        tick(pq, q);
        assertTrue(pq.consumer().receive(q, "c").isEmpty());
        assertEquals(1, queryLong(ds, "select count(*) from pgque.dead_letter where ev_id = ?", id));
    }

    @Test
    void queueAndConsumerInfoReflectSettingsAndState() {
        String q = queueWithConsumer("q_info");
        pq.queues().setTickerMaxCount(q, 700);
        pq.queues().setTickerMaxLag(q, Duration.ofMillis(2500));
        pq.queues().setTickerIdlePeriod(q, Duration.ofMinutes(2));
        pq.queues().setRotationPeriod(q, Duration.ofHours(3));
        QueueInfo info = pq.queues().info(q).orElseThrow();
        assertEquals(q, info.queueName());
        assertEquals(700, info.tickerMaxCount());
        assertEquals(Duration.ofMillis(2500), info.tickerMaxLag());
        assertEquals(Duration.ofMinutes(2), info.tickerIdlePeriod());
        assertEquals(Duration.ofHours(3), info.rotationPeriod());
        assertTrue(info.ntables() >= 2);
        assertFalse(info.tickerPaused());
        assertFalse(info.externalTicker());
        assertNotNull(info.lastTickId(), "create_queue ticks once");
        assertTrue(pq.queues().infoAll().stream().anyMatch(i -> i.queueName().equals(q)));

        pq.queues().setTickerPaused(q, true);
        assertTrue(pq.queues().info(q).orElseThrow().tickerPaused());
        pq.queues().resetConfig(q, QueueParam.TICKER_PAUSED);
        assertFalse(pq.queues().info(q).orElseThrow().tickerPaused());
        pq.queues().resetConfig(q, QueueParam.TICKER_MAX_COUNT);
        assertEquals(500, pq.queues().info(q).orElseThrow().tickerMaxCount());

        pq.producer().send(q, "t", "x");
        Batch batch = awaitBatch(pq, q, "c");
        ConsumerInfo open = pq.queues().consumerInfo(q, "c").orElseThrow();
        assertEquals(q, open.queueName());
        assertEquals("c", open.consumerName());
        assertEquals(batch.batchId(), open.currentBatch());
        assertNotNull(open.nextTick());
        assertNotNull(open.lag());
        pq.consumer().ack(batch);
        ConsumerInfo done = pq.queues().consumerInfo(q, "c").orElseThrow();
        assertNull(done.currentBatch());
        assertEquals(open.nextTick(), done.lastTick());
        assertEquals(List.of("c"), names(pq.queues().consumerInfo(q)));
        assertTrue(pq.queues().consumerInfoAll().stream().anyMatch(i -> i.queueName().equals(q)));
    }

    @Test
    void versionIsTheBundledOne() {
        assertEquals(PgQueInstaller.bundledVersion(), pq.operations().version());
    }

    @Test
    void tickerReportsWhatItDid() {
        String q = queueWithConsumer("q_ticker");
        pq.producer().send(q, "t", "x");
        pq.operations().forceNextTick(q);
        assertTrue(pq.operations().ticker() >= 1);
        assertTrue(pq.operations().maint() >= 0);
    }

    private static Message byId(Batch batch, long id) {
        return batch.messages().stream().filter(m -> m.msgId() == id).findFirst()
                .orElseThrow(() -> new AssertionError("message " + id + " not in batch " + batch));
    }

    private static List<String> names(List<ConsumerInfo> infos) {
        List<String> names = new ArrayList<>();
        infos.forEach(i -> names.add(i.consumerName()));
        return names;
    }
}
