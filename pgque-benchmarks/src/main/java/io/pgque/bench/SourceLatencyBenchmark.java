/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.PgQue;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Source latency: a steady producer into the queue and a Kafka consumer on the topic, the time
 * from each event's {@code send} to its arrival; the connector as shipped
 * ({@code config/pgque-source.json}, queue left at its defaults) and tuned, beside a
 * hand-written bridge that ticks with the same period.
 */
final class SourceLatencyBenchmark {

    private static final int RATE = 1_000;
    private static final Duration RUN = Duration.ofSeconds(20);
    private static final Path SHIPPED_CONFIG = Path.of("../config/pgque-source.json");
    /** Keys of the shipped file that name the user's database, queue and topic: the benchmark's own go there. */
    private static final Set<String> SITE_KEYS = Set.of("name", "connection.url", "connection.user",
            "connection.password", "pgque.queue", "pgque.consumer", "topic");

    /**
     * Connector settings beyond the shipped file, for both connector rows, to price one in the
     * same conditions: {@code -Dsource.latency.settings=key=value,key=value}.
     */
    private static final Map<String, String> EXTRA_SETTINGS = settings(System.getProperty("source.latency.settings", ""));

    private final BenchServer server;

    SourceLatencyBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        Map<String, String> shipped = shippedConfig();
        int slots = Integer.parseInt(shipped.get("pgque.slots"));
        Duration shippedTick = Duration.ofMillis(Long.parseLong(shipped.get("pgque.ticker.interval.ms")));
        Duration fastTick = Duration.ofMillis(50);
        try (Connection c = server.connect(); SourceKafkaSide kafka = SourceKafkaSide.start(false)) {
            String jdbcUrl = c.getMetaData().getURL();
            List<String> topics = List.of("lat_bridge_100", "lat_src_shipped", "lat_bridge_50", "lat_src_50");
            kafka.createTopics(topics);
            System.out.println();
            System.out.printf("### Latency: %d ev/s for %d s, send to a Kafka consumer; queue defaults "
                    + "(ticker_max_count 500, ticker_max_lag 3 s); connector with N = %d, tasks.max = %d%n%n",
                    RATE, RUN.toSeconds(), slots, slots);
            Latencies.printHeader();
            Map<String, Latencies> rows = new LinkedHashMap<>();
            Latencies bridge100 = bridgeLatency(c, kafka, "lat_bridge_100", shippedTick);
            printRow(rows, "baseline loop, ticker_round 100 ms, idle poll 100 ms", bridge100, null);
            Map<String, String> asShipped = new HashMap<>(shipped);
            printRow(rows, "connector, config/pgque-source.json as shipped (100 ms)",
                    connectorLatency(c, kafka, jdbcUrl, "lat_src_shipped", asShipped, slots), bridge100);
            Latencies bridge50 = bridgeLatency(c, kafka, "lat_bridge_50", fastTick);
            printRow(rows, "baseline loop, ticker_round 50 ms, idle poll 50 ms", bridge50, null);
            Map<String, String> fast = new HashMap<>(shipped);
            fast.put("pgque.ticker.interval.ms", Long.toString(fastTick.toMillis()));
            fast.put("pgque.poll.interval.ms", Long.toString(fastTick.toMillis()));
            printRow(rows, "connector, shipped, ticker and poll interval 50 ms",
                    connectorLatency(c, kafka, jdbcUrl, "lat_src_50", fast, slots), bridge50);
            System.out.println();
            System.out.println("Of that, from the broker's append to the consumer:");
            rows.forEach((what, latencies) -> System.out.println("- " + what + ": " + latencies.afterAppend()));
        }
    }

    private static void printRow(Map<String, Latencies> rows, String what, Latencies latencies, Latencies baseline) {
        latencies.printRow(what, baseline);
        rows.put(what, latencies);
    }

    private static Map<String, String> settings(String list) {
        Map<String, String> settings = new HashMap<>();
        for (String pair : list.split(",")) {
            if (!pair.isBlank()) {
                String[] kv = pair.split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("source.latency.settings: not key=value: " + pair);
                }
                settings.put(kv[0].trim(), kv[1].trim());
            }
        }
        return settings;
    }

    /** The shipped example, less the keys that name the user's site. */
    private static Map<String, String> shippedConfig() throws IOException {
        Map<String, Object> file = new ObjectMapper().readValue(SHIPPED_CONFIG.toFile(),
                new TypeReference<Map<String, Object>>() { });
        @SuppressWarnings("unchecked")
        Map<String, String> config = new HashMap<>((Map<String, String>) file.get("config"));
        config.keySet().removeAll(SITE_KEYS);
        config.keySet().removeIf(key -> key.startsWith("topic.creation."));
        return config;
    }

    /**
     * The bridge beside its own ticker thread, which runs the same round as the connector's duty
     * ({@code pgque.ticker_round}) every {@code tick}, and rests {@code tick} when no batch is ready.
     */
    private Latencies bridgeLatency(Connection c, SourceKafkaSide kafka, String queue, Duration tick)
            throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        pgque.consumer().subscribe(queue, SourceBridge.CONSUMER);
        ScheduledExecutorService ticker = SourceBenchmark.daemonScheduler("bench-ticker");
        Connection tickConnection = server.connect();
        ticker.scheduleWithFixedDelay(() -> PgQue.using(tickConnection).operations().tickerRound(tick), 0,
                tick.toMillis(), TimeUnit.MILLISECONDS);
        AtomicBoolean running = new AtomicBoolean(true);
        ScheduledExecutorService loop = SourceBenchmark.daemonScheduler("bench-bridge");
        Future<?> bridgeDone;
        try (Connection own = server.connect();
             SourceBridge bridge = new SourceBridge(own, kafka.bootstrapServers(), queue)) {
            bridgeDone = loop.submit(() -> {
                while (running.get()) {
                    bridge.step(tick);
                }
                return null;
            });
            try {
                return SteadyLoad.measure(server, kafka, queue, RATE, RUN);
            } finally {
                running.set(false);
                bridgeDone.get(30, TimeUnit.SECONDS);
            }
        } finally {
            loop.shutdownNow();
            ticker.shutdownNow();
            ticker.awaitTermination(10, TimeUnit.SECONDS);
            tickConnection.close();
        }
    }

    private Latencies connectorLatency(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue,
                                       Map<String, String> config, int slots) throws Exception {
        PgQue.using(c).queues().create(queue);
        config.put("name", queue);
        config.put("connection.url", jdbcUrl);
        config.put("pgque.queue", queue);
        config.put("topic", queue);
        config.put("pgque.metrics.log.interval.ms", "0");
        config.putAll(EXTRA_SETTINGS);
        kafka.runConnector(queue, config, slots);
        // Every slot claimed before the clock starts, so task start-up is not counted as latency.
        SourceBenchmark.awaitCondition("all " + slots + " slots of " + queue + " leased",
                () -> SourceBenchmark.leasedSlots(c, queue) == slots);
        try {
            return SteadyLoad.measure(server, kafka, queue, RATE, RUN);
        } finally {
            kafka.removeConnector(queue, () -> SourceBenchmark.leasedSlots(c, queue) == 0);
        }
    }
}
