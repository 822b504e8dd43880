/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.PgQue;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Source throughput: a pre-loaded, pre-ticked queue drained into Kafka by the connector for
 * N = 1, 4 and 8 slots (one task per slot), beside a hand-written bridge in the same run on the
 * same database and broker.
 *
 * <p>Also measured with {@code pgque.delivery.guarantee=exactly_once} at N = 4, to price the
 * Kafka transactions. Such a connector needs a worker with
 * {@code exactly.once.source.support=enabled}, and such a worker makes every source task
 * transactional, so those runs go to a second broker and worker in this JVM, set up like the
 * first apart from that one setting.
 *
 * <p>Timed by the broker, not by this program: the topics use {@code LogAppendTime}, and a run
 * lasts from the first record's append to the last one's. So task start-up (pools, leases) is
 * left out for the connector, and the bridge is timed the same way.
 */
final class SourceThroughputBenchmark {

    private static final int EVENTS = 50_000;
    /** Warm-up runs per path: both keep speeding up over the first few runs as the JIT compiles them. */
    private static final int WARMUP_RUNS = 2;
    private static final int[] SLOT_COUNTS = {1, 4, 8};
    private static final int EXACTLY_ONCE_SLOTS = 4;
    private static final int ROUNDS = 3;

    private final BenchServer server;

    SourceThroughputBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        try (Connection c = server.connect(); SourceKafkaSide kafka = SourceKafkaSide.start(false);
             SourceKafkaSide eosKafka = SourceKafkaSide.start(true)) {
            // The URL as the driver saw it, so the connector reaches the very same database.
            String jdbcUrl = c.getMetaData().getURL();
            // Topics made long before use: a producer's first sends to a brand-new partition can
            // bounce off a broker that has not taken up leadership yet, which would be timed.
            List<String> topics = new ArrayList<>();
            List<String> eosTopics = new ArrayList<>();
            for (int run = 0; run < WARMUP_RUNS; run++) {
                topics.addAll(List.of("warm_bridge_" + run, "warm_src_" + run));
                eosTopics.add("warm_src_eos_" + run);
            }
            for (int round = 0; round < ROUNDS; round++) {
                topics.add("bridge_r" + round);
                for (int n : SLOT_COUNTS) {
                    topics.add("src_n" + n + "_r" + round);
                }
                eosTopics.add("src_eos_n" + EXACTLY_ONCE_SLOTS + "_r" + round);
            }
            kafka.createTopics(topics);
            eosKafka.createTopics(eosTopics);

            // JIT and connection warm-up for both paths, kept out of the figures.
            for (int run = 0; run < WARMUP_RUNS; run++) {
                bridgeThroughput(c, kafka, "warm_bridge_" + run, EVENTS);
                connectorThroughput(c, kafka, jdbcUrl, "warm_src_" + run, EXACTLY_ONCE_SLOTS, false, EVENTS);
                connectorThroughput(c, eosKafka, jdbcUrl, "warm_src_eos_" + run, EXACTLY_ONCE_SLOTS, true, EVENTS);
            }

            // Rounds interleave the rows, so a burst of load from elsewhere on the machine hits
            // one run of each, not every run of one; each row shows its median run.
            List<List<AppendSpan>> runs = new ArrayList<>();
            for (int row = 0; row <= SLOT_COUNTS.length; row++) {
                runs.add(new ArrayList<>());
            }
            List<AppendSpan> exactlyOnceRuns = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                runs.get(0).add(bridgeThroughput(c, kafka, "bridge_r" + round, EVENTS));
                for (int i = 0; i < SLOT_COUNTS.length; i++) {
                    int n = SLOT_COUNTS[i];
                    runs.get(i + 1).add(connectorThroughput(c, kafka, jdbcUrl, "src_n" + n + "_r" + round, n, false,
                            EVENTS));
                    if (n == EXACTLY_ONCE_SLOTS) {
                        // Right after its at-least-once twin, so a load drift hits both alike.
                        exactlyOnceRuns.add(connectorThroughput(c, eosKafka, jdbcUrl, "src_eos_n" + n + "_r" + round,
                                n, true, EVENTS));
                    }
                }
            }
            Timing.printHeader("Throughput: " + EVENTS + " keyed events (~" + SourcePayload.BYTES + " B) over "
                    + SourceBenchmark.KEYS + " keys, pre-loaded, one tick per " + SourceLoader.EVENTS_PER_TICK
                    + " events; topic of " + SourceBenchmark.TOPIC_PARTITIONS + " partitions; median of " + ROUNDS
                    + " runs");
            AppendSpan bridge = AppendSpan.median(runs.get(0));
            double bridgeRate = bridge.rate();
            Timing.printRow("baseline: one loop, receive batch, send, flush, ack", bridge.count(), bridge.seconds(), 0);
            for (int i = 0; i < SLOT_COUNTS.length; i++) {
                printConnectorRow(SLOT_COUNTS[i], "at_least_once", AppendSpan.median(runs.get(i + 1)), bridgeRate);
                if (SLOT_COUNTS[i] == EXACTLY_ONCE_SLOTS) {
                    printConnectorRow(EXACTLY_ONCE_SLOTS, "exactly_once", AppendSpan.median(exactlyOnceRuns),
                            bridgeRate);
                }
            }
        }
    }

    private static void printConnectorRow(int n, String guarantee, AppendSpan span, double bridgeRate) {
        Timing.printRow("connector, N = " + n + " slots, tasks.max = " + n + ", " + guarantee, span.count(),
                span.seconds(), bridgeRate);
    }

    private AppendSpan bridgeThroughput(Connection c, SourceKafkaSide kafka, String queue, int events)
            throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        pgque.consumer().subscribe(queue, SourceBridge.CONSUMER);
        SourceLoader.preload(c, queue, events);
        try (Connection own = server.connect();
             SourceBridge bridge = new SourceBridge(own, kafka.bootstrapServers(), queue)) {
            bridge.drain(events);
        }
        return kafka.appendSpan(queue, events);
    }

    private AppendSpan connectorThroughput(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue, int n,
                                           boolean exactlyOnce, int events) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        // Subscribed before loading: the connector's own subscribe would start after the events.
        pgque.slotConsumer(queue, queue, n, "bench-setup").subscribe();
        SourceLoader.preload(c, queue, events);
        Map<String, String> config = SourceBenchmark.connectorConfig(jdbcUrl, queue, n);
        if (exactlyOnce) {
            // The connector draws the transactions: one per poll, with the source offsets of every slot in it.
            config.put("pgque.delivery.guarantee", "exactly_once");
            config.put("exactly.once.support", "required");
            config.put("transaction.boundary", "connector");
        }
        kafka.runConnector(queue, config, n);
        AppendSpan span = kafka.appendSpan(queue, events);
        kafka.removeConnector(queue, () -> SourceBenchmark.leasesReleased(c, queue));
        return span;
    }
}
