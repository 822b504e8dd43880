/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.PgQue;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The price of exactly-once in the source connector: N = 4 slots read by 4 tasks (a slot each)
 * and by 2 tasks (two slots each), each at least-once and exactly-once, on the throughput
 * benchmark's data set. Exactly-once commits one Kafka transaction per {@code poll()}, which
 * carries the ready batches of every slot of the task, so tasks holding several slots share a
 * transaction's cost among them; the table shows the records per transaction (Connect's
 * {@code transaction-size-avg}) beside the rates. Rounds interleave the four rows, each
 * exactly-once run right after its at-least-once twin; a row is the median of its runs and
 * the ratio the median of the same-round ratios.
 */
final class SourceTransactionsBenchmark {

    private static final int SLOTS = 4;
    private static final int[] TASKS = {4, 2};
    private static final int EVENTS = Integer.getInteger("source.transactions.events", 50_000);
    private static final int ROUNDS = Integer.getInteger("source.transactions.rounds", 5);

    private final BenchServer server;

    SourceTransactionsBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        try (Connection c = server.connect(); SourceKafkaSide kafka = SourceKafkaSide.start(false);
             SourceKafkaSide eosKafka = SourceKafkaSide.start(true)) {
            String jdbcUrl = c.getMetaData().getURL();
            List<String> topics = new ArrayList<>();
            List<String> eosTopics = new ArrayList<>();
            for (int round = -1; round < ROUNDS; round++) {
                for (int tasks : TASKS) {
                    topics.add(name("alo", tasks, round));
                    eosTopics.add(name("eos", tasks, round));
                }
            }
            kafka.createTopics(topics);
            eosKafka.createTopics(eosTopics);
            List<List<Double>> ratios = new ArrayList<>();
            List<List<AppendSpan>> alo = new ArrayList<>();
            List<List<AppendSpan>> eos = new ArrayList<>();
            double[] perTransaction = new double[TASKS.length];
            for (int i = 0; i < TASKS.length; i++) {
                ratios.add(new ArrayList<>());
                alo.add(new ArrayList<>());
                eos.add(new ArrayList<>());
            }
            for (int round = -1; round < ROUNDS; round++) { // round -1 warms the JIT up, kept out
                for (int i = 0; i < TASKS.length; i++) {
                    AppendSpan a = drain(c, kafka, jdbcUrl, name("alo", TASKS[i], round), TASKS[i], false, null);
                    double[] size = new double[1];
                    AppendSpan e = drain(c, eosKafka, jdbcUrl, name("eos", TASKS[i], round), TASKS[i], true, size);
                    if (round >= 0) {
                        alo.get(i).add(a);
                        eos.get(i).add(e);
                        ratios.get(i).add(e.rate() / a.rate());
                        perTransaction[i] = size[0];
                    }
                }
            }
            System.out.println();
            System.out.println("### Exactly-once against at-least-once: " + EVENTS + " keyed events, N = " + SLOTS
                    + " slots, one tick per " + SourceLoader.EVENTS_PER_TICK + " events; median of " + ROUNDS
                    + " interleaved rounds");
            System.out.println();
            System.out.println("| tasks.max | at_least_once events/s | exactly_once events/s | records per transaction "
                    + "| exactly_once / at_least_once (median of rounds) | per round |");
            System.out.println("|---|---|---|---|---|---|");
            for (int i = 0; i < TASKS.length; i++) {
                List<Double> sorted = new ArrayList<>(ratios.get(i));
                sorted.sort(Double::compare);
                StringBuilder rounds = new StringBuilder();
                ratios.get(i).forEach(r -> rounds.append(rounds.length() == 0 ? "" : ", ").append(String.format("%.2f", r)));
                System.out.printf("| %d | %.0f | %.0f | %.0f | %.2f | %s |%n", TASKS[i],
                        AppendSpan.median(alo.get(i)).rate(), AppendSpan.median(eos.get(i)).rate(), perTransaction[i],
                        sorted.get(sorted.size() / 2), rounds);
            }
        }
    }

    private static String name(String guarantee, int tasks, int round) {
        return "tx_" + guarantee + "_t" + tasks + "_" + (round < 0 ? "warm" : "r" + round);
    }

    /** @param size where to put the records per transaction (exactly-once), averaged over the tasks */
    private static AppendSpan drain(Connection c, SourceKafkaSide kafka, String jdbcUrl, String queue, int tasks,
                                    boolean exactlyOnce, double[] size) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        pgque.slotConsumer(queue, queue, SLOTS, "bench-setup").subscribe();
        SourceLoader.preload(c, queue, EVENTS);
        Map<String, String> config = SourceBenchmark.connectorConfig(jdbcUrl, queue, SLOTS);
        config.put("tasks.max", Integer.toString(tasks));
        if (exactlyOnce) {
            config.put("pgque.delivery.guarantee", "exactly_once");
            config.put("exactly.once.support", "required");
            config.put("transaction.boundary", "connector");
        }
        kafka.runConnector(queue, config, tasks);
        AppendSpan span = kafka.appendSpan(queue, EVENTS);
        if (exactlyOnce) {
            size[0] = transactionSize(queue);
        }
        kafka.removeConnector(queue, () -> SourceBenchmark.leasesReleased(c, queue));
        return span;
    }

    /** Connect's own count: records per committed transaction, averaged over the connector's tasks. */
    private static double transactionSize(String connector) throws Exception {
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        double sum = 0;
        int tasks = 0;
        for (ObjectName name : mbeans.queryNames(
                new ObjectName("kafka.connect:type=source-task-metrics,connector=" + connector + ",*"), null)) {
            sum += ((Number) mbeans.getAttribute(name, "transaction-size-avg")).doubleValue();
            tasks++;
        }
        return tasks == 0 ? Double.NaN : sum / tasks;
    }
}
