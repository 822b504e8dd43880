/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.util.Arrays;

/**
 * Entry point of the benchmark programs. Each benchmark starts its own embedded PostgreSQL (or
 * uses {@code --jdbc-url=...}), measures the engine and a raw baseline on the same server in the
 * same run, and prints both with their ratio.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: BenchMain engine|slots|pause|sink|source|source-throughput|source-latency|source-modes|source-drain|source-transactions|chart [--jdbc-url=jdbc:postgresql://...]");
            System.exit(2);
        }
        if (args[0].equals("chart")) {
            // Needs no server: renders the figures already in docs/benchmarks.md.
            BenchmarkChart.render(java.nio.file.Path.of(args.length > 1 ? args[1] : "../docs/benchmarks.md"),
                    java.nio.file.Path.of(args.length > 2 ? args[2] : "../docs/benchmarks.png"));
            return;
        }
        String jdbcUrl = Arrays.stream(args).filter(a -> a.startsWith("--jdbc-url="))
                .map(a -> a.substring("--jdbc-url=".length())).findFirst().orElse(null);
        // The latency benchmark runs Debezium's WAL reader beside the source: logical WAL for all its rows.
        try (BenchServer server = BenchServer.start(jdbcUrl, args[0].equals("source-latency"))) {
            switch (args[0]) {
                case "engine" -> new EngineBenchmark(server).run();
                case "slots" -> new SlotBenchmark(server).run();
                case "pause" -> new PauseBenchmark(server).run();
                case "sink" -> new SinkBenchmark(server).run();
                case "source" -> new SourceBenchmark(server).run();
                case "source-throughput" -> new SourceThroughputBenchmark(server).run();
                case "source-latency" -> new SourceLatencyBenchmark(server).run();
                case "source-modes" -> new SourceModesBenchmark(server).run();
                case "source-drain" -> new SourceDrainBenchmark(server).run();
                case "source-transactions" -> new SourceTransactionsBenchmark(server).run();
                default -> {
                    System.err.println("unknown benchmark: " + args[0] + " (engine, slots, pause, sink, source, source-throughput, source-latency, source-modes, source-drain, source-transactions, chart)");
                    System.exit(2);
                }
            }
        }
    }
}
