/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.testing.PluginMetricsJmx;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code pgque.mode=cooperative} in a Connect cluster: two tasks are two workers of one
 * cooperative consumer and take whole batches in turn while events are produced; tasks are
 * restarted mid-stream. At-least-once must lose nothing; exactly-once (workers with
 * {@code exactly.once.source.support=enabled}, a {@code read_committed} reader) must show every
 * event once, also when an ack is lost after Kafka committed the batch.
 */
class SourceCooperativeIT {

    private static final int KEYS = 20;
    private static final int PER_KEY = 100;
    private static ConnectFixture fixture;

    @BeforeAll
    static void start() {
        // One cluster for both guarantees: exactly-once needs it on the workers, and an
        // at-least-once connector runs on such workers as well.
        fixture = new ConnectFixture("pgque-source-coop-it", 2, Map.of("exactly.once.source.support", "enabled"));
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void twoTasksShareTheStreamAndARestartLosesNothing() throws Exception {
        String name = "coop-alo";
        startConnector(name, false);
        Thread producer = produce(name, 0, PER_KEY);
        awaitRecords(name, 300);
        fixture.connect.restartTask(name, 0);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "task 0 back");
        producer.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());

        Set<String> workers = readEveryEvent(name);
        assertEquals(Set.of("task-0", "task-1"), workers, "both tasks took batches");
        awaitGroupCaughtUp(name);
        fixture.connect.deleteConnector(name);
    }

    /**
     * Restarts both tasks mid-stream; then the dangerous window: Kafka committed a batch, its ack
     * failed and the task died. The batch is still the worker's, comes back under the same id
     * when the task restarts, and the worker's committed offset says Kafka has it, so it is acked
     * without being sent again.
     */
    @Test
    void exactlyOnceThroughRestartsAndLostAcksDeliversEveryEventOnce() throws Exception {
        String name = "coop-eos";
        fixture.pg.execute("create table public.coop_fault (acks_fail boolean not null)");
        fixture.pg.execute("insert into public.coop_fault values (false)");
        // Qualified names: the engine's functions run with search_path = pgque, pg_catalog.
        fixture.pg.execute("create or replace function public.coop_fail_acks() returns trigger language plpgsql "
                + "as $$ begin if (select acks_fail from public.coop_fault) and current_query() ilike '%pgque.ack(%' "
                + "then raise exception 'injected: the ack is lost'; end if; return new; end $$");
        fixture.pg.execute("create trigger coop_fail_acks before update on pgque.subscription for each row "
                + "when (old.sub_batch is not null and new.sub_batch is null) execute function public.coop_fail_acks()");
        try {
            startConnector(name, true);
            Thread first = produce(name, 0, PER_KEY / 2);
            awaitRecords(name, 300);
            fixture.connect.restartTask(name, 0);
            fixture.connect.restartTask(name, 1);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks back");
            first.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());

            // Every ack fails from now on, so each task dies holding a batch Kafka has committed.
            fixture.pg.execute("update public.coop_fault set acks_fail = true");
            Thread second = produce(name, PER_KEY / 2, PER_KEY);
            fixture.connect.assertions().assertConnectorIsRunningAndTasksHaveFailed(name, 2,
                    "both tasks died on a lost ack");
            fixture.pg.execute("update public.coop_fault set acks_fail = false");
            fixture.connect.restartConnectorAndTasks(name, true, true, false);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks back");
            second.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
            assertEveryEventOnce(name);
            assertTrue(PluginMetricsJmx.sum(name, "batches-skipped-total") >= 2,
                    "each restarted task acked a committed batch without sending it again");
        } finally {
            fixture.pg.execute("drop trigger if exists coop_fail_acks on pgque.subscription");
        }
        fixture.connect.deleteConnector(name);
    }

    private static void startConnector(String name, boolean exactlyOnce) throws InterruptedException {
        fixture.pg.createQueue(name);
        fixture.connect.kafka().createTopic(name, 3);
        Map<String, String> config = fixture.connectorConfig(name, name, 1, 2);
        config.remove("pgque.slots");
        config.put("pgque.mode", "cooperative");
        config.put("pgque.ticker.enabled", "true");
        // A task that stops with a batch out keeps it; at-least-once lets a sibling take it after this.
        config.put("pgque.lease.ttl.ms", "3000");
        // Batches here hold dozens of events: small chunks make each batch stream through its cursor.
        config.put("pgque.batch.max.events", "16");
        if (exactlyOnce) {
            ConnectFixture.exactlyOnce(config);
        }
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, name + " did not start");
        // The tests send from here on, and the group starts at the newest tick when it is
        // registered: a task reports RUNNING only once its worker is (the ticker duty may tick
        // the first events before any poll).
        assertEquals(3, fixture.pg.queryLong("select count(*) from pgque.get_consumer_info(?) where consumer_name "
                + "in (?, ?, ?)", name, name, name + ".task-0", name + ".task-1"),
                "the group and both workers are registered once the tasks run");
    }

    /** Sequence numbers {@code from..to-1}: one event per key per transaction, 20 every 50 ms or so. */
    private static Thread produce(String queue, int from, int to) {
        return fixture.producePaced(queue, KEYS, from, to);
    }

    private static void awaitRecords(String topic, long count) throws InterruptedException {
        QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.recordCount(topic) > count);
    }

    /**
     * Reads the topic until every event was seen at least once (no loss); returns the workers
     * named in the records' {@code pgque.subconsumer} header.
     */
    private static Set<String> readEveryEvent(String topic) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + topic + "-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Set<String> distinct = new HashSet<>();
        Set<String> workers = new HashSet<>();
        long deadline = System.nanoTime() + ConnectFixture.DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = fixture.connect.kafka().createConsumerAndSubscribeTo(props,
                topic)) {
            while (distinct.size() < KEYS * PER_KEY) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + distinct.size() + " of " + KEYS * PER_KEY + " events reached "
                            + topic + " within " + ConnectFixture.DELIVERY_TIMEOUT.toSeconds() + " s; missing: "
                            + missing(distinct));
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    distinct.add(new String(record.value(), StandardCharsets.UTF_8));
                    Header worker = record.headers().lastHeader("pgque.subconsumer");
                    workers.add(new String(worker.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return workers;
    }

    /** The first events sent that are not among {@code seen}, which tell a window from a tail or a stray. */
    private static List<String> missing(Set<String> seen) {
        List<String> missing = new ArrayList<>();
        for (int seq = 0; seq < PER_KEY && missing.size() < 2 * KEYS; seq++) {
            for (int k = 0; k < KEYS; k++) {
                String value = "key-" + k + ":" + seq;
                if (!seen.contains(value)) {
                    missing.add(value);
                }
            }
        }
        return missing;
    }

    /** Every event once in what a read_committed reader sees; order is not promised between batches. */
    private static void assertEveryEventOnce(String name) throws InterruptedException {
        readEveryEvent(name);
        awaitGroupCaughtUp(name);
        Map<String, List<Integer>> byKey = fixture.readAllCommitted(name);
        assertEquals(KEYS, byKey.size(), "every key arrived");
        List<Integer> expected = new ArrayList<>();
        for (int seq = 0; seq < PER_KEY; seq++) {
            expected.add(seq);
        }
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            List<Integer> seqs = new ArrayList<>(entry.getValue());
            Collections.sort(seqs);
            assertEquals(expected, seqs, "key " + entry.getKey() + ": each event once");
        }
    }

    /** The group cursor has passed every event and no worker holds a batch. */
    private static void awaitGroupCaughtUp(String queue) throws InterruptedException {
        QueueFixture.await("the cooperative consumer acked everything", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.pg.queryLong("select count(*) from pgque.get_consumer_info(?) where (consumer_name = ? "
                        + "and pending_events > 0) or (consumer_name like ? and current_batch is not null)",
                        queue, queue, queue + ".%") == 0);
        assertTrue(fixture.pg.queryLong("select count(*) from pgque.get_consumer_info(?) where consumer_name like ?",
                queue, queue + ".task-%") >= 2, "both workers are registered");
    }
}
