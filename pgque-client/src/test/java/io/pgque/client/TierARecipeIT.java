/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The design brief's migration case (ENGINE.md section 5): producers race to enqueue "migrate
 * tenant T", cooperative workers run the migrations with {@link PerKeyExclusion}; every tenant is
 * migrated and never by two workers at once. Overlaps are recorded by the handler itself: it
 * marks its tenant in flight on entry and clears it on exit, and a second entry while marked
 * counts as an overlap.
 */
class TierARecipeIT {

    private static final Duration HOUR = Duration.ofHours(1);
    private static final int WORKERS = 4;
    private static final int PRODUCERS = 8;

    private static DataSource ds;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        EmbeddedPg.TestDatabase db = ClientTesting.newDatabase("client_tier_a").installEngine();
        ds = db.superuser();
        pq = PgQue.using(ds);
    }

    /** A handler that migrates a tenant (one row per tenant, counting runs) and records overlaps. */
    static final class Migrations implements PerKeyExclusion.Handler {
        final String table;
        final Map<String, Thread> inFlight = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        final String dwell;

        Migrations(String table, String dwellSeconds) {
            this.table = table;
            this.dwell = dwellSeconds;
            ClientTesting.exec(ds, "create table " + table + " (tenant text primary key, runs int not null,"
                    + " payload text)");
        }

        @Override
        public void handle(Connection tx, Message m) throws SQLException {
            String tenant = m.partitionKey();
            if (inFlight.putIfAbsent(tenant, Thread.currentThread()) != null) {
                overlaps.incrementAndGet();
            }
            try {
                runs.incrementAndGet();
                try (PreparedStatement ps = tx.prepareStatement("insert into " + table
                        + " (tenant, runs, payload) values (?, 1, ?) on conflict (tenant) do update"
                        + " set runs = " + table + ".runs + 1, payload = excluded.payload")) {
                    ps.setString(1, tenant);
                    ps.setString(2, m.payload());
                    ps.executeUpdate();
                }
                if (dwell != null) {
                    try (PreparedStatement ps = tx.prepareStatement("select pg_sleep(" + dwell + ")")) {
                        ps.execute();
                    }
                }
            } finally {
                inFlight.remove(tenant, Thread.currentThread());
            }
        }

        long tenantsMigrated() {
            return count("select count(*) from " + table);
        }

        long totalRuns() {
            return count("select coalesce(sum(runs), 0) from " + table);
        }
    }

    static long count(String sql) {
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    static long storedEvents(String queue) {
        String pfx;
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("select queue_data_pfx from pgque.queue where queue_name = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                pfx = rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return count("select count(*) from " + pfx);
    }

    /** Totals of the workers' outcomes. */
    record Totals(int batches, int handled, int dropped) {
    }

    /**
     * Runs {@code producers} (each a task that sends) while a ticker ticks and {@link #WORKERS}
     * cooperative workers process with the recipe, until everything sent has been consumed.
     */
    static Totals run(String queue, Migrations handler, List<Runnable> producers) throws Exception {
        pq.queues().create(queue);
        List<PerKeyExclusion> workers = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            CoopConsumer worker = pq.coopConsumer(queue, "migrator", "w" + w);
            worker.register();
            workers.add(new PerKeyExclusion(pq, worker, "migrate:", Message::partitionKey, null));
        }
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + WORKERS);
        List<Future<?>> sending = new ArrayList<>();
        producers.forEach(p -> sending.add(pool.submit(p)));
        AtomicBoolean produced = new AtomicBoolean();
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        AtomicInteger dropped = new AtomicInteger();
        List<Future<?>> working = new ArrayList<>();
        for (PerKeyExclusion worker : workers) {
            working.add(pool.submit(() -> {
                while (true) {
                    boolean finalRound = produced.get();
                    Optional<PerKeyExclusion.Outcome> o = worker.processNext(handler);
                    if (o.isPresent()) {
                        batches.incrementAndGet();
                        handled.addAndGet(o.get().handled());
                        dropped.addAndGet(o.get().dropped());
                    } else if (finalRound && caughtUp(queue)) {
                        return null;
                    } else {
                        Thread.sleep(10); // poll interval while producers and ticker are ahead
                    }
                }
            }));
        }
        // The ticker: many small windows, so that the workers run in parallel.
        while (!sending.stream().allMatch(Future::isDone)) {
            ClientTesting.tick(pq, queue);
            Thread.sleep(20);
        }
        for (Future<?> f : sending) {
            f.get();
        }
        ClientTesting.tick(pq, queue);
        produced.set(true);
        for (Future<?> f : working) {
            f.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));
        return new Totals(batches.get(), handled.get(), dropped.get());
    }

    /** The group cursor has reached the newest tick: every window was handed out (and acked). */
    static boolean caughtUp(String queue) {
        return count("select count(*) from pgque.get_consumer_info('" + queue + "') where consumer_name like 'migrator%'"
                + " and current_batch is not null") == 0
                && count("select count(*) from pgque.get_consumer_info('" + queue + "', 'migrator') i"
                + " where i.last_tick = (select max(tick_id) from pgque.tick t join pgque.queue q"
                + " on q.queue_id = t.tick_queue where q.queue_name = '" + queue + "')") == 1;
    }

    static List<String> shuffled(List<String> tenants, long seed) {
        List<String> copy = new ArrayList<>(tenants);
        Collections.shuffle(copy, new Random(seed));
        return copy;
    }

    static List<String> tenants(int n) {
        List<String> t = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            t.add("tenant-" + i);
        }
        return t;
    }

    /** 8 producers race over 5,000 tenants with send_idem: one event per tenant, one migration each. */
    @Test
    void racingProducersWithDedupInsertOncePerTenantAndEveryTenantIsMigratedOnce() throws Exception {
        String q = "tier_a_dedup";
        List<String> tenants = tenants(5_000);
        Migrations handler = new Migrations("migrated_dedup", null);
        AtomicInteger inserted = new AtomicInteger();
        List<Runnable> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            long seed = p;
            producers.add(() -> {
                List<String> order = shuffled(tenants, seed);
                for (int from = 0; from < order.size(); from += 250) {
                    List<IdempotentEvent> chunk = order.subList(from, Math.min(from + 250, order.size())).stream()
                            .map(t -> IdempotentEvent.of("migrate:" + t + ":v1",
                                    Event.of("migrate", "v1").withPartitionKey(t)))
                            .toList();
                    pq.producer().sendIdemBatch(q, chunk, HOUR).forEach(r -> {
                        if (!r.deduped()) {
                            inserted.incrementAndGet();
                        }
                    });
                }
            });
        }
        Totals totals = run(q, handler, producers);

        assertEquals(tenants.size(), inserted.get(), "inserted events == distinct tenants");
        assertEquals(tenants.size(), storedEvents(q));
        assertEquals(tenants.size(), handler.tenantsMigrated(), "every tenant's handler ran");
        assertEquals(tenants.size(), handler.totalRuns(), "once each");
        assertEquals(tenants.size(), totals.handled());
        assertEquals(0, handler.overlaps.get(), "never two runs at once for one tenant");
        assertTrue(totals.batches() > 1, "the work was spread over several batches: " + totals);
    }

    /**
     * Without producer dedup every tenant is enqueued 8 times; the duplicates meet in different
     * workers' batches at the same time. Still every tenant runs, and never twice at once.
     */
    @Test
    void withoutDedupStillOneConcurrentRunPerTenant() throws Exception {
        String q = "tier_a_plain";
        List<String> tenants = tenants(600);
        Migrations handler = new Migrations("migrated_plain", "0.002");
        List<Runnable> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            long seed = 100 + p;
            producers.add(() -> {
                List<String> order = shuffled(tenants, seed);
                for (int from = 0; from < order.size(); from += 50) {
                    pq.producer().sendBatch(q, order.subList(from, Math.min(from + 50, order.size())).stream()
                            .map(t -> Event.of("migrate", "v1").withPartitionKey(t)).toList());
                }
            });
        }
        Totals totals = run(q, handler, producers);

        int sent = PRODUCERS * tenants.size();
        assertEquals(sent, storedEvents(q), "no dedup: every send inserted");
        assertEquals(sent, totals.handled() + totals.dropped(), "every event was handled or dropped, none lost");
        assertEquals(tenants.size(), handler.tenantsMigrated(), "every tenant's handler ran");
        assertEquals(totals.handled(), handler.totalRuns());
        assertEquals(0, handler.overlaps.get(), "never two runs at once for one tenant");
    }

    /**
     * The exclusion itself, made deterministic: while worker a's handler holds tenant T, worker
     * b's batch with T and U handles U and drops T (acked, not retried, not waited for).
     */
    @Test
    void contendedKeyIsDroppedAndAckedWhileItsHolderRuns() throws Exception {
        String q = "tier_a_contended";
        pq.queues().create(q);
        CoopConsumer a = pq.coopConsumer(q, "m", "a");
        CoopConsumer b = pq.coopConsumer(q, "m", "b");
        a.register();
        b.register();
        pq.producer().send(q, Event.of("migrate", "first").withPartitionKey("T"));
        ClientTesting.tick(pq, q);
        pq.producer().sendBatch(q, List.of(Event.of("migrate", "second").withPartitionKey("T"),
                Event.of("migrate", "other").withPartitionKey("U")));
        ClientTesting.tick(pq, q);

        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        PerKeyExclusion.Handler holding = (tx, m) -> {
            ran.add(m.payload());
            entered.countDown();
            try {
                assertTrue(release.await(2, TimeUnit.MINUTES));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException(e);
            }
        };
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Optional<PerKeyExclusion.Outcome>> first = pool.submit(
                () -> new PerKeyExclusion(pq, a, "migrate:", Message::partitionKey, null).processNext(holding));
        assertTrue(entered.await(2, TimeUnit.MINUTES), "a is running T");

        PerKeyExclusion.Outcome second = new PerKeyExclusion(pq, b, "migrate:", Message::partitionKey, null)
                .processNext((tx, m) -> ran.add(m.payload())).orElseThrow();
        assertEquals(1, second.handled(), "U ran");
        assertEquals(1, second.dropped(), "T was dropped: a holds it");
        release.countDown();
        PerKeyExclusion.Outcome firstOutcome = first.get(2, TimeUnit.MINUTES).orElseThrow();
        pool.shutdown();
        assertEquals(1, firstOutcome.handled());
        assertEquals(List.of("first", "other"), ran);
        assertTrue(a.receive().isEmpty() && b.receive().isEmpty(), "both batches were acked, nothing retried");
        assertEquals(0, count("select count(*) from pgque.retry_queue"));

        // The same key under another namespace is another lock: no false contention.
        Function<Message, String> key = Message::partitionKey;
        assertFalse(new PerKeyExclusion(pq, a, "migrate:", key, null).lockKey("T")
                .equals(new PerKeyExclusion(pq, a, "reindex:", key, null).lockKey("T")));
    }

    /**
     * The brief's key-scope hazard, end to end: keyed on the entity ({@code migrate:tenant}),
     * migration v2 sent within the TTL of v1 is suppressed and v2 never runs; keyed on the effect
     * ({@code migrate:tenant:version}) both are inserted and the tenant ends at v2.
     */
    @Test
    void keyScopeHazardEntityKeySuppressesV2EffectKeyDoesNot() throws Exception {
        String q = "tier_a_hazard";
        pq.queues().create(q);
        CoopConsumer worker = pq.coopConsumer(q, "m", "a");
        worker.register();
        Migrations handler = new Migrations("migrated_hazard", null);
        PerKeyExclusion recipe = new PerKeyExclusion(pq, worker, "migrate:", Message::partitionKey, null);

        SendIdemResult v1 = pq.producer().sendIdem(q, IdempotentEvent.of("migrate:t1",
                Event.of("migrate", "v1").withPartitionKey("t1")), HOUR);
        SendIdemResult v2 = pq.producer().sendIdem(q, IdempotentEvent.of("migrate:t1",
                Event.of("migrate", "v2").withPartitionKey("t1")), HOUR);
        assertFalse(v1.deduped());
        assertTrue(v2.deduped(), "hazard: v2 is taken for a duplicate of v1");
        ClientTesting.tick(pq, q);
        drain(recipe, handler);
        assertEquals("v1", payloadOf(handler, "t1"), "hazard: the tenant never reaches v2");

        SendIdemResult e1 = pq.producer().sendIdem(q, IdempotentEvent.of("migrate:t2:v1",
                Event.of("migrate", "v1").withPartitionKey("t2")), HOUR);
        SendIdemResult e2 = pq.producer().sendIdem(q, IdempotentEvent.of("migrate:t2:v2",
                Event.of("migrate", "v2").withPartitionKey("t2")), HOUR);
        assertFalse(e1.deduped());
        assertFalse(e2.deduped(), "keyed on the effect, v2 is its own event");
        ClientTesting.tick(pq, q);
        pq.producer().sendIdem(q, IdempotentEvent.of("migrate:t2:v2",
                Event.of("migrate", "v2").withPartitionKey("t2")), HOUR);
        ClientTesting.tick(pq, q);
        drain(recipe, handler);
        assertEquals("v2", payloadOf(handler, "t2"));
    }

    private static void drain(PerKeyExclusion recipe, Migrations handler) {
        while (recipe.processNext(handler).isPresent()) {
            // one batch per call; empty once the group cursor is at the newest tick
        }
    }

    private static String payloadOf(Migrations handler, String tenant) {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("select payload from " + handler.table + " where tenant = ?")) {
            ps.setString(1, tenant);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "tenant " + tenant + " was migrated");
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Dead interval and heartbeat through the client: a silent worker's batch goes to a sibling
     * and its late ack fails; a worker that heartbeats through a long handler keeps its batch.
     */
    @Test
    void heartbeatKeepsALongBatchSilenceLosesIt() throws Exception {
        String q = "tier_a_heartbeat";
        pq.queues().create(q);
        Duration dead = Duration.ofSeconds(1);
        CoopConsumer a = pq.coopConsumer(q, "m", "a");
        CoopConsumer b = pq.coopConsumer(q, "m", "b").withDeadInterval(dead);
        a.register();
        b.register();

        // Silent: a holds a batch and says nothing; b takes it once the interval has passed.
        pq.producer().send(q, Event.of("t", "silent"));
        ClientTesting.tick(pq, q);
        Batch held = a.receive().orElseThrow();
        Batch taken = ClientTesting.await("takeover by b", b::receive);
        assertEquals(held.messages().get(0).msgId(), taken.messages().get(0).msgId());
        assertThrows(BatchNotFoundException.class, () -> a.ack(held.batchId()), "the silent worker's late ack");
        b.ack(taken.batchId());

        // Heartbeating: b keeps trying for several dead intervals and gets nothing.
        pq.producer().send(q, Event.of("t", "busy"));
        ClientTesting.tick(pq, q);
        Batch busy = a.receive().orElseThrow();
        try (Heartbeat beat = a.heartbeat(Duration.ofMillis(100))) {
            long until = System.nanoTime() + dead.multipliedBy(3).toNanos();
            int tries = 0;
            while (System.nanoTime() < until || tries < 5) {
                assertTrue(b.receive().isEmpty(), "a heartbeating worker keeps its batch");
                tries++;
                Thread.sleep(100);
            }
        }
        a.ack(busy.batchId());
        try (Connection c = ds.getConnection()) {
            assertThrows(IllegalStateException.class,
                    () -> PgQue.using(c).coopConsumer(q, "m", "a").heartbeat(Duration.ofSeconds(1)),
                    "a heartbeat inside the caller's transaction would be invisible to siblings");
            PgQue inCallersTransaction = PgQue.using(c);
            assertThrows(IllegalArgumentException.class, () -> new PerKeyExclusion(inCallersTransaction,
                    inCallersTransaction.coopConsumer(q, "m", "a"), "migrate:", Message::partitionKey, null),
                    "the recipe opens batches in transactions of their own");
        }
    }
}
