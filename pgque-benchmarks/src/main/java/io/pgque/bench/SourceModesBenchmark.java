/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.PgQue;
import io.pgque.connect.source.coop.CoopTasks;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The source connector's two modes on one backlog: {@code pgque.mode=cooperative} with 1, 2
 * and 4 tasks beside {@code ordered} with 4 slots read by 2 tasks, and the hand-written bridge
 * of {@link SourceThroughputBenchmark} as the raw loop, all in the same run.
 *
 * <p>Each round fills one queue with the backlog (~1 KB JSON documents over 1,000 keys, a tick
 * per {@link SourceLoader#EVENTS_PER_TICK}) after subscribing one consumer per path, so every
 * path drains the very same events; loading once per round instead of once per run is what
 * makes 200,000-event runs affordable. Before the drains the queue's tables are read once, so
 * no path pays for bringing them into the cache; the order of the paths moves on by one each
 * round, so none is always first after loading. Runs are timed by the broker, as in
 * {@link SourceThroughputBenchmark}.
 */
final class SourceModesBenchmark {

    private static final int EVENTS = Integer.getInteger("source.modes.events", 200_000);
    private static final int WARMUP_EVENTS = Integer.getInteger("source.modes.warmup.events", 20_000);
    private static final int ROUNDS = Integer.getInteger("source.modes.rounds", 3);

    /** One way to move the queue into Kafka; {@code tasks == 0} is the bridge. */
    private record Path(String id, String label, String mode, int slots, int tasks) {
        boolean bridge() {
            return tasks == 0;
        }
    }

    private static final List<Path> PATHS = List.of(
            new Path("bridge", "baseline: one loop, receive batch, send, flush, ack", null, 0, 0),
            new Path("coop1", "cooperative, tasks.max = 1", "cooperative", 0, 1),
            new Path("coop2", "cooperative, tasks.max = 2", "cooperative", 0, 2),
            new Path("coop4", "cooperative, tasks.max = 4", "cooperative", 0, 4),
            new Path("ordered4x2", "ordered, N = 4 slots, tasks.max = 2", "ordered", 4, 2));

    private final BenchServer server;

    SourceModesBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        try (Connection c = server.connect(); SourceKafkaSide kafka = SourceKafkaSide.start(false)) {
            String jdbcUrl = c.getMetaData().getURL();
            System.out.printf(Locale.ROOT, "source modes: %d events of ~%d B per round, %d rounds after a warm-up "
                    + "round of %d; load average at start %s%n", EVENTS, Documents.averageBytes(1_000), ROUNDS,
                    WARMUP_EVENTS, BacklogRounds.loadAverage());
            round(c, kafka, jdbcUrl, "modes_warm", WARMUP_EVENTS, 0);

            Map<Path, List<AppendSpan>> runs = new LinkedHashMap<>();
            PATHS.forEach(p -> runs.put(p, new ArrayList<>()));
            for (int round = 0; round < ROUNDS; round++) {
                Map<Path, AppendSpan> spans = round(c, kafka, jdbcUrl, "modes_r" + round, EVENTS, round);
                spans.forEach((p, span) -> runs.get(p).add(span));
                System.out.printf(Locale.ROOT, "round %d done, load average %s%n", round + 1, BacklogRounds.loadAverage());
            }

            Timing.printHeader("Source modes: " + EVENTS + " keyed JSON documents (~" + Documents.averageBytes(1_000)
                    + " B) over " + Documents.KEYS + " keys, pre-loaded, one tick per " + SourceLoader.EVENTS_PER_TICK
                    + " events; topic of " + SourceBenchmark.TOPIC_PARTITIONS + " partitions; median of " + ROUNDS
                    + " runs");
            double bridgeRate = AppendSpan.median(runs.get(PATHS.get(0))).rate();
            for (Path p : PATHS) {
                AppendSpan median = AppendSpan.median(runs.get(p));
                Timing.printRow(p.label(), median.count(), median.seconds(), p.bridge() ? 0 : bridgeRate);
            }
            List<List<AppendSpan>> rows = PATHS.stream().map(runs::get).toList();
            BacklogRounds.printPerRound("bridge", PATHS.stream().map(Path::label).toList(), rows);
        }
    }

    private Map<Path, AppendSpan> round(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue, int events,
                                        int rotation) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        // Every path's consumer exists before the first event, so each reads the whole backlog.
        for (Path p : PATHS) {
            if (p.bridge()) {
                pgque.consumer().subscribe(queue, p.id());
            } else if (p.slots() > 0) {
                pgque.slotConsumer(queue, p.id(), p.slots(), "bench-setup").subscribe();
            } else {
                pgque.coopConsumer(queue, p.id(), CoopTasks.workerName(0)).register(false);
            }
        }
        List<String> topics = PATHS.stream().map(p -> queue + "_" + p.id()).toList();
        kafka.createTopics(topics);
        double loadSeconds = Timing.seconds(() -> BacklogRounds.preload(c, queue, events));
        double warmSeconds = Timing.seconds(() -> BacklogRounds.readEventTables(c));
        System.out.printf(Locale.ROOT, "%s: loaded %d events in %.1f s, read them into the cache in %.1f s%n", queue,
                events, loadSeconds, warmSeconds);

        Map<Path, AppendSpan> spans = new LinkedHashMap<>();
        for (int i = 0; i < PATHS.size(); i++) {
            Path p = PATHS.get((i + rotation) % PATHS.size());
            String topic = queue + "_" + p.id();
            AppendSpan span = p.bridge()
                    ? BacklogRounds.engineLoop(server, kafka, queue, p.id(), topic, events)
                    : connector(c, kafka, jdbcUrl, queue, p, topic, events);
            System.out.printf(Locale.ROOT, "  %-52s %8.0f events/s (%.1f s)%n", p.label(), span.rate(),
                    span.seconds());
            kafka.deleteTopic(topic);
            spans.put(p, span);
        }
        pgque.queues().drop(queue, true);
        Map<Path, AppendSpan> inPathOrder = new LinkedHashMap<>();
        PATHS.forEach(p -> inPathOrder.put(p, spans.get(p)));
        return inPathOrder;
    }

    private static AppendSpan connector(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue, Path p,
                                        String topic, int events) throws Exception {
        Map<String, String> config = BacklogRounds.connectorConfig(jdbcUrl, queue, p.id(), topic, p.mode(), p.tasks());
        if (p.slots() > 0) {
            config.put("pgque.slots", Integer.toString(p.slots()));
        } else {
            config.remove("pgque.slots");
        }
        return BacklogRounds.drainWith(c, kafka, config, p.tasks(), events, p.slots() > 0);
    }
}
