/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.testing.PluginMetricsJmx;
import org.apache.kafka.connect.util.clusters.WorkerHandle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exactly-once delivery (KIP-618) in a Connect cluster whose workers have
 * {@code exactly.once.source.support=enabled}: one Kafka transaction per PgQue batch, with the
 * batch's source offset. Tasks are restarted, a worker leaves, and acks are lost after Kafka
 * committed; a {@code read_committed} consumer must see every event once, in per-key order.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SourceExactlyOnceIT {

    private static final int SLOTS = 4;
    private static final int KEYS = 20;
    private static final int PER_KEY = 100;
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
        Thread producer = produce(name);
        for (int round = 0; round < 2; round++) {
            long before = fixture.recordCount(name);
            QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                    () -> fixture.recordCount(name) > before + 300);
            fixture.connect.restartTask(name, 0);
            fixture.connect.restartTask(name, 1);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks back");
        }
        producer.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
        assertEveryEventOnce(name);
        fixture.connect.deleteConnector(name);
    }

    @Test
    @Order(2)
    void aWorkerLeavingMidStreamDeliversEveryEventOnce() throws Exception {
        String name = "eos-leave";
        startConnector(name);
        Thread producer = produce(name);
        QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.recordCount(name) > 300);
        WorkerHandle leaver = fixture.connect.workers().iterator().next();
        fixture.connect.removeWorker(leaver);
        fixture.connect.assertions().assertExactlyNumWorkersAreUp(1, "one worker left");
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2,
                "both tasks run on the remaining worker");
        producer.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
        assertEveryEventOnce(name);
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
        // Fails explicit acks only (not the batches a receive finishes at once because they hold
        // nothing for the slot), so every task dies holding a batch Kafka has committed.
        // Qualified names: the engine's functions run with search_path = pgque, pg_catalog.
        fixture.pg.execute("create or replace function public.it_fail_acks() returns trigger language plpgsql as $$ "
                + "begin if (select acks_fail from public.it_fault) and current_query() ilike '%ack_partitioned%' then "
                + "raise exception 'injected: the ack is lost'; end if; return new; end $$");
        fixture.pg.execute("create trigger it_fail_acks before update on pgque.subscription for each row "
                + "when (old.sub_batch is not null and new.sub_batch is null) execute function public.it_fail_acks()");
        try {
            startConnector(name);
            Thread first = fixture.producePaced(name, KEYS, 0, PER_KEY / 2);
            QueueFixture.await("records flowing", ConnectFixture.DELIVERY_TIMEOUT,
                    () -> fixture.recordCount(name) > 300);
            first.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
            // The fault goes on before the second half is sent: on a slow machine the first half
            // may be all delivered by now, and a task with nothing left to ack would never fail.
            fixture.pg.execute("update public.it_fault set acks_fail = true");
            Thread second = fixture.producePaced(name, KEYS, PER_KEY / 2, PER_KEY);
            fixture.connect.assertions().assertConnectorIsRunningAndTasksHaveFailed(name, 2,
                    "both tasks died on a lost ack");
            fixture.pg.execute("update public.it_fault set acks_fail = false");
            fixture.connect.restartConnectorAndTasks(name, true, true, false);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, "tasks back");
            second.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
            assertEveryEventOnce(name);
            assertTrue(PluginMetricsJmx.sum(name, "batches-skipped-total") >= 2,
                    "each restarted task acked a committed batch without sending it again");
            fixture.connect.deleteConnector(name);
        } finally {
            fixture.pg.execute("drop trigger if exists it_fail_acks on pgque.subscription");
        }
    }

    private static void startConnector(String name) throws InterruptedException {
        fixture.pg.createQueue(name);
        fixture.connect.kafka().createTopic(name, 3);
        Map<String, String> config = fixture.connectorConfig(name, name, SLOTS, 2);
        config.put("pgque.ticker.enabled", "true");
        config.put("pgque.delivery.guarantee", "exactly_once");
        config.put("exactly.once.support", "required");
        config.put("transaction.boundary", "connector");
        // A task that stops with a batch not yet committed keeps its slot until the lease runs out.
        config.put("pgque.lease.ttl.ms", "3000");
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 2, name + " did not start");
    }

    /** One event per key per transaction, 20 every 50 ms or so, so the faults land mid-stream. */
    private static Thread produce(String queue) {
        return fixture.producePaced(queue, KEYS, 0, PER_KEY);
    }

    private static void assertEveryEventOnce(String name) throws InterruptedException {
        fixture.readPerKey(name, KEYS * PER_KEY);
        fixture.awaitSlotsCaughtUp(name, name, SLOTS);
        Map<String, List<Integer>> byKey = fixture.readAllCommitted(name);
        fixture.assertExactlyOnceInOrder(byKey, KEYS, PER_KEY);
    }
}
