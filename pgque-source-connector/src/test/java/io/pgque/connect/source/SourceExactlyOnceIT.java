/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.connect.source.config.EventHeaders;
import io.pgque.connect.source.offsets.SourceOffsets;
import io.pgque.testing.PluginMetricsJmx;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.runtime.rest.errors.ConnectRestException;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exactly-once delivery (KIP-618) in a Connect cluster whose workers have
 * {@code exactly.once.source.support=enabled}: a Kafka transaction holds chunks of the batches of
 * several slots of a task (with {@code transaction.boundary=connector} handed over a chunk per
 * poll), with their source offsets. Tasks are restarted, a worker leaves, and acks are lost after Kafka
 * committed; a {@code read_committed} consumer must see every event once, in per-key order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SourceExactlyOnceIT {

    private static final int SLOTS = 4;
    private static final int KEYS = 20;
    /** Rounds the producer sends at least, however early the test stops it. */
    private static final int MIN_ROUNDS = 40;
    private static ConnectFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new ConnectFixture("pgque-source-eos-it", 2, Map.of(
                "exactly.once.source.support", "enabled",
                // Reassign a departed worker's tasks after 1 s instead of Connect's default 5 minutes.
                "scheduled.rebalance.max.delay.ms", "1000"));
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    @Order(1)
    void restartingTasksOverRestMidStreamDeliversEveryEventOnce() throws Exception {
        String name = "eos-restart";
        startConnector(name);
        Producer producer = new Producer(name);
        for (int round = 0; round < 2; round++) {
            long before = fixture.recordCount(name);
            QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                    () -> fixture.recordCount(name) > before + 300);
            fixture.connect.restartTask(name, 0);
            fixture.connect.restartTask(name, 1);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks back");
        }
        assertEveryEventOnce(name, producer.stopAndJoin());
        fixture.connect.deleteConnector(name);
    }

    @Test
    @Order(2)
    void aWorkerLeavingMidStreamDeliversEveryEventOnce() throws Exception {
        String name = "eos-leave";
        startConnector(name);
        Producer producer = new Producer(name);
        QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.recordCount(name) > 300);
        WorkerHandle leaver = fixture.connect.workers().iterator().next();
        fixture.connect.removeWorker(leaver);
        fixture.connect.assertions().assertExactlyNumWorkersAreUp(1, "one worker left");
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2,
                "both tasks run on the remaining worker");
        assertEveryEventOnce(name, producer.stopAndJoin());
        fixture.connect.deleteConnector(name);
        fixture.connect.addWorker();
        fixture.connect.assertions().assertExactlyNumWorkersAreUp(2, "the worker is back for the next test");
    }

    /**
     * The dangerous window: Kafka committed a batch, then the ack in PostgreSQL failed and the
     * task died. The batch is still open in the database and comes again to the next owner,
     * which must find it in the committed offsets and ack it without sending it again.
     */
    @Test
    @Order(3)
    void aBatchCommittedInKafkaButNotAckedIsNotSentAgain() throws Exception {
        String name = "eos-lost-ack";
        fixture.pg.execute("create table public.it_fault (acks_fail boolean not null)");
        fixture.pg.execute("insert into public.it_fault values (false)");
        // Fails explicit acks only, alone or with the next receive (not the batches a receive
        // finishes at once because they hold nothing for the slot), so every task dies holding a
        // batch Kafka has committed. Qualified names: the engine's functions run with
        // search_path = pgque, pg_catalog.
        fixture.pg.execute("create or replace function public.it_fail_acks() returns trigger language plpgsql as $$ "
                + "begin if (select acks_fail from public.it_fault) and current_query() ~* 'ack(_receive)?_partitioned' then "
                + "raise exception 'injected: the ack is lost'; end if; return new; end $$");
        fixture.pg.execute("create trigger it_fail_acks before update on pgque.subscription for each row "
                + "when (old.sub_batch is not null and new.sub_batch is null) execute function public.it_fail_acks()");
        try {
            startConnector(name);
            Producer producer = new Producer(name);
            QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                    () -> fixture.recordCount(name) > 300);
            fixture.pg.execute("update public.it_fault set acks_fail = true");
            // The test ticks too while it waits: whichever task dies first may be the one that
            // ticks, and the other must still get a batch to fail its ack on. The producer runs
            // on until the test stops it, so there are always new events to batch.
            QueueFixture.await("both tasks to die on a lost ack", ConnectFixture.DELIVERY_TIMEOUT, () -> {
                fixture.pg.tick(name);
                return failedTasks(name) == 2;
            });
            fixture.pg.execute("update public.it_fault set acks_fail = false");
            fixture.connect.restartConnectorAndTasks(name, true, true, false);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks back");
            assertEveryEventOnce(name, producer.stopAndJoin());
            // At least one: a task may die on a batch it took over from the other dead task, so
            // two deaths can leave one committed-but-open batch between them. What must never
            // happen, a second copy in Kafka, assertEveryEventOnce has already ruled out.
            assertTrue(PluginMetricsJmx.sum(name, "batches-skipped-total") >= 1,
                    "a restarted task acked a committed batch without sending it again");
            fixture.connect.deleteConnector(name);
        } finally {
            fixture.pg.execute("drop trigger if exists it_fail_acks on pgque.subscription");
        }
    }

    /**
     * One task holding all four slots commits what its slots have ready as one Kafka transaction.
     * On a topic of one partition the records of a transaction sit at consecutive offsets and
     * every commit writes a marker, which takes an offset of its own, so records of two slots at
     * consecutive offsets were committed in the same transaction. The events are in PgQue (one
     * tick, a batch per slot) before the task starts, so its first poll finds every slot ready.
     */
    @Test
    @Order(4)
    void oneTransactionCarriesTheBatchesOfSeveralSlots() throws Exception {
        String name = "eos-multi-slot";
        int perKey = 10;
        fixture.pg.createQueue(name);
        fixture.connect.kafka().createTopic(name, 1);
        fixture.pg.pgque.slotConsumer(name, name, SLOTS, "setup").subscribe();
        fixture.sendInterleaved(name, KEYS, perKey, KEYS);
        fixture.pg.tick(name);
        Map<String, String> config = fixture.connectorConfig(name, name, SLOTS, 1);
        ConnectFixture.exactlyOnce(config);
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, name + " did not start");

        List<List<Integer>> transactions = slotsPerTransaction(name, KEYS * perKey);
        assertTrue(transactions.stream().anyMatch(slots -> new HashSet<>(slots).size() >= 2),
                "a transaction holds records of several slots; slots per transaction: " + transactions);
        assertEveryEventOnce(name, perKey);
        fixture.connect.deleteConnector(name);
    }

    /**
     * Reads a one-partition topic as a {@code read_committed} consumer until {@code expected}
     * records came; the slot of every record, grouped by runs of consecutive offsets (a gap is
     * a transaction marker).
     */
    private static List<List<Integer>> slotsPerTransaction(String topic, int expected) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<List<Integer>> transactions = new ArrayList<>();
        long deadline = System.nanoTime() + ConnectFixture.DELIVERY_TIMEOUT.toNanos();
        int seen = 0;
        long previous = -2;
        try (KafkaConsumer<byte[], byte[]> consumer = fixture.connect.kafka().createConsumer(props)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            while (seen < expected) {
                assertTrue(System.nanoTime() < deadline, "only " + seen + " of " + expected + " records within "
                        + ConnectFixture.DELIVERY_TIMEOUT.toSeconds() + " s");
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.offset() != previous + 1) {
                        transactions.add(new ArrayList<>());
                    }
                    previous = record.offset();
                    Header slot = record.headers().lastHeader(EventHeaders.SLOT);
                    transactions.get(transactions.size() - 1)
                            .add(Integer.parseInt(new String(slot.value(), StandardCharsets.UTF_8)));
                    seen++;
                }
            }
        }
        return transactions;
    }

    /** Connect's offsets REST API: an offset the connector would never read is refused, its own are stored. */
    @Test
    @Order(4)
    void offsetRequestsThroughRestAreCheckedBeforeConnectStoresThem() throws Exception {
        String name = "eos-offsets";
        startConnector(name);
        fixture.connect.stopConnector(name);
        fixture.connect.assertions().assertConnectorIsStopped(name, "stopped for offset changes");

        ConnectRestException refused = assertThrows(ConnectRestException.class, () -> fixture.connect
                .alterConnectorOffsets(name, ConnectFixture.offsetsRequest(SourceOffsets.partition("refunds", name, 0),
                        SourceOffsets.offset(1, 2))));
        assertTrue(refused.getMessage().contains("the connector reads queue '" + name + "'"), refused.getMessage());

        fixture.connect.alterConnectorOffsets(name, ConnectFixture.offsetsRequest(
                SourceOffsets.partition(name, name, 1), SourceOffsets.offset(7, 70)));
        fixture.awaitStoredOffsets(name, "the altered offset of slot 1", stored -> stored.stream().anyMatch(o ->
                ((Number) o.partition().get(SourceOffsets.SLOT)).intValue() == 1
                        && ((Number) o.offset().get(SourceOffsets.BATCH_ID)).longValue() == 7L
                        && ((Number) o.offset().get(SourceOffsets.EVENT_ID)).longValue() == 70L));

        fixture.connect.resetConnectorOffsets(name);
        fixture.awaitStoredOffsets(name, "no offsets after the reset", List::isEmpty);
        fixture.connect.deleteConnector(name);
    }

    private static void startConnector(String name) throws InterruptedException {
        fixture.pg.createQueue(name);
        fixture.connect.kafka().createTopic(name, 3);
        Map<String, String> config = fixture.connectorConfig(name, name, SLOTS, 2);
        config.put("pgque.ticker.enabled", "true");
        ConnectFixture.exactlyOnce(config);
        // A task that stops with a batch not yet committed keeps its slot until the lease runs out.
        config.put("pgque.lease.ttl.ms", "3000");
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, name + " did not start");
    }

    /**
     * Sends one round (one event per key, one transaction) about every 50 ms until the test stops
     * it, and at least {@link #MIN_ROUNDS}: the faults land mid-stream however slowly the machine
     * gets to them, where a producer with a fixed number of rounds could finish first.
     */
    private static final class Producer {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicInteger rounds = new AtomicInteger();
        private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
        private final Thread thread;

        Producer(String queue) {
            thread = new Thread(() -> {
                try {
                    while (!stop.get() || rounds.get() < MIN_ROUNDS) {
                        int seq = rounds.get();
                        List<Event> events = new ArrayList<>(KEYS);
                        for (int k = 0; k < KEYS; k++) {
                            events.add(Event.of("order", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
                        }
                        fixture.pg.send(queue, events);
                        rounds.incrementAndGet();
                        Thread.sleep(50); // paces the producer (rate shaping), not a wait for anything
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    failure.set(e);
                }
            }, "it-producer-" + queue);
            thread.start();
        }

        /** Stops after the round in progress; returns how many rounds (events per key) were sent. */
        int stopAndJoin() throws InterruptedException {
            stop.set(true);
            thread.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
            if (thread.isAlive()) {
                throw new AssertionError("the producer did not stop within " + ConnectFixture.DELIVERY_TIMEOUT);
            }
            if (failure.get() != null) {
                throw new AssertionError("the producer failed: " + failure.get(), failure.get());
            }
            return rounds.get();
        }
    }

    private static long failedTasks(String name) {
        return fixture.connect.connectorStatus(name).tasks().stream()
                .filter(task -> "FAILED".equals(task.state()))
                .count();
    }

    private static void assertEveryEventOnce(String name, int perKey) throws InterruptedException {
        fixture.readPerKey(name, KEYS * perKey);
        fixture.awaitSlotsCaughtUp(name, name, SLOTS);
        Map<String, List<Integer>> byKey = fixture.readAllCommitted(name);
        fixture.assertExactlyOnceInOrder(byKey, KEYS, perKey);
    }

}
