/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.client.Event;
import io.pgque.client.ResizeState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Changing {@code pgque.slots} of a running connector resizes the consumer online. Keyed events
 * over 500 keys flow at about 1,000 per second while N goes 4 → 8 (a PUT of the whole config,
 * with old slot 1's acks held back by a transient fault so that the task draining it is restarted
 * while the resize is open) and 8 → 3 (a PATCH); every event arrives, in
 * per-key order across both switches, at-least-once and exactly-once. Sized down from the issue's
 * 50,000 events: the producer runs until both resizes are done and a little longer, so events
 * flow through both switches whatever the machine's speed.
 */
class SourceResizeIT {

    private static final int KEYS = 500;
    private static final int TASKS = 3;
    /** Rounds sent after the second resize completed, so the new set is seen carrying traffic. */
    private static final int ROUNDS_AFTER = 4;
    private static ConnectFixture fixture;

    @BeforeAll
    static void start() {
        fixture = new ConnectFixture("pgque-source-resize-it", 1, Map.of("exactly.once.source.support", "enabled"));
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void resizingWhileEventsFlowKeepsPerKeyOrderAtLeastOnce() throws Exception {
        String name = "resize-alo";
        int rounds = resizeTwiceUnderLoad(name, Map.of());
        Map<String, List<Integer>> byKey = fixture.readPerKey(name, KEYS * rounds);
        fixture.assertPerKeyOrder(byKey, KEYS, rounds);
        fixture.assertReplaysAreSuffixes(byKey);
        fixture.connect.deleteConnector(name);
    }

    @Test
    void resizingWhileEventsFlowDeliversEveryEventOnceExactlyOnce() throws Exception {
        String name = "resize-eos";
        int rounds = resizeTwiceUnderLoad(name, Map.of(
                "pgque.delivery.guarantee", "exactly_once",
                "exactly.once.support", "required",
                "transaction.boundary", "connector"));
        fixture.readPerKey(name, KEYS * rounds);
        fixture.awaitSlotsCaughtUp(name, name, 3);
        fixture.assertExactlyOnceInOrder(fixture.readAllCommitted(name), KEYS, rounds);
        fixture.connect.deleteConnector(name);
    }

    /** Runs the connector at N=4, grows it to 8 (restarting a task meanwhile), shrinks it to 3; returns the rounds sent. */
    private static int resizeTwiceUnderLoad(String name, Map<String, String> extra) throws Exception {
        fixture.pg.createQueue(name);
        fixture.connect.kafka().createTopic(name, 3);
        Map<String, String> config = fixture.connectorConfig(name, name, 4, TASKS);
        config.put("pgque.ticker.enabled", "true");
        // A task stopped with a batch still on its way keeps its slot only this long.
        config.put("pgque.lease.ttl.ms", "3000");
        config.putAll(extra);
        fixture.connect.configureConnector(name, config);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, TASKS, name + " did not start");

        AtomicBoolean resized = new AtomicBoolean(false);
        AtomicInteger rounds = new AtomicInteger();
        Thread producer = produce(name, resized, rounds);
        QueueFixture.await("records flowing at N=4", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.recordCount(name) > 3 * KEYS);

        // Old slot 1 cannot ack (a transient error) until released below, so the resize to 8
        // stays open while task 1, which drains that slot, is restarted.
        holdAcks(name + "#1/4");
        try {
            config.put("pgque.slots", "8");
            fixture.connect.configureConnector(name, config);
            QueueFixture.await("the resize to 8 waits for old slot 1", ConnectFixture.DELIVERY_TIMEOUT,
                    () -> state(name).draining() && state(name).blockers().stream().anyMatch(b -> b.startsWith("slot 1:")));
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, TASKS, "tasks draining");
            fixture.connect.restartTask(name, 1);
            fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, TASKS, "task 1 back");
            assertTrue(state(name).draining(), "the restart happened during the resize");
        } finally {
            releaseAcks();
        }
        awaitResized(name, 8, 1);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, TASKS, "tasks run at N=8");

        long atEight = fixture.recordCount(name);
        QueueFixture.await("records flowing at N=8", ConnectFixture.DELIVERY_TIMEOUT,
                () -> fixture.recordCount(name) > atEight + 2 * KEYS);
        fixture.connect.patchConnectorConfig(name, Map.of("pgque.slots", "3"));
        awaitResized(name, 3, 2);
        fixture.connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, TASKS, "tasks run at N=3");
        resized.set(true);
        producer.join(ConnectFixture.DELIVERY_TIMEOUT.toMillis());
        assertFalse(producer.isAlive(), "the producer finished");
        assertEquals(3L, fixture.pg.queryLong("select count(*) from pgque.partition_slot_status where queue_name = ?",
                name), "only the 3 new slots are left");
        return rounds.get();
    }

    /**
     * Makes every ack of the slot subscription {@code slot} fail with a serialization failure,
     * which the task treats as transient and retries: the slot's batch stays open.
     */
    private static void holdAcks(String slot) {
        fixture.pg.execute("create table if not exists public.it_held_slot (name text not null)");
        fixture.pg.execute("delete from public.it_held_slot");
        fixture.pg.execute("insert into public.it_held_slot values ('" + slot + "')");
        // Qualified names: the engine's functions run with search_path = pgque, pg_catalog.
        fixture.pg.execute("create or replace function public.it_hold_ack() returns trigger language plpgsql as $$ "
                + "begin if current_query() ilike '%ack_partitioned%' and exists (select 1 from public.it_held_slot h "
                + "join pgque.consumer c on c.co_name = h.name where c.co_id = old.sub_consumer) then "
                + "raise exception 'injected: ack held' using errcode = '40001'; end if; return new; end $$");
        fixture.pg.execute("create or replace trigger it_hold_ack before update on pgque.subscription for each row "
                + "when (old.sub_batch is not null and new.sub_batch is null) execute function public.it_hold_ack()");
    }

    private static void releaseAcks() {
        fixture.pg.execute("drop trigger if exists it_hold_ack on pgque.subscription");
    }

    private static void awaitResized(String name, int n, long epoch) throws InterruptedException {
        QueueFixture.await("the resize to " + n + " completed", Duration.ofSeconds(180), () -> {
            ResizeState state = state(name);
            return !state.draining() && state.n() == n && state.resizeEpoch() == epoch;
        });
    }

    private static ResizeState state(String name) {
        return fixture.pg.pgque.slotResize(name, name).state().orElseThrow();
    }

    /**
     * One event per key per round, each round one transaction, about 1,000 events per second,
     * until both resizes are done and {@link #ROUNDS_AFTER} rounds more were sent.
     */
    private static Thread produce(String queue, AtomicBoolean resized, AtomicInteger rounds) {
        Thread producer = new Thread(() -> {
            int after = 0;
            while (after < ROUNDS_AFTER) {
                int seq = rounds.get();
                List<Event> events = new ArrayList<>(KEYS);
                for (int k = 0; k < KEYS; k++) {
                    events.add(Event.of("order", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
                }
                fixture.pg.send(queue, events);
                rounds.incrementAndGet();
                if (resized.get()) {
                    after++;
                }
                try {
                    Thread.sleep(500); // paces the producer (rate shaping), not a wait for anything
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }, "it-producer-" + queue);
        producer.start();
        return producer;
    }
}
