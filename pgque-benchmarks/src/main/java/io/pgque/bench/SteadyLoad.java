/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Event;
import io.pgque.client.PgQue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A steady producer into the queue and a Kafka consumer on the topic: the latency of each
 * event from just before its {@code send} to the moment the consumer has it. One JVM, so the
 * send time in the payload and the receive time come from the same {@link System#nanoTime()}.
 */
final class SteadyLoad {
    private static final int PER_SEND = 5;

    private SteadyLoad() {
    }

    /**
     * Measures the events sent in the first {@code run} at {@code rate} events per second; the
     * producer goes on until the last of them has arrived, so they are ticked like all the
     * others instead of waiting out {@code ticker_max_lag} at the end of the run.
     */
    static Latencies measure(BenchServer server, SourceKafkaSide kafka, String queue, int rate, Duration run)
            throws Exception {
        int measured = (int) (run.toMillis() * rate / 1000);
        long periodMicros = 1_000_000L * PER_SEND / rate;
        ScheduledExecutorService producer = SourceBenchmark.daemonScheduler("bench-producer");
        try (Connection c = server.connect();
             KafkaConsumer<byte[], byte[]> reader = kafka.readerFromStart(queue)) {
            PgQue pgque = PgQue.using(c);
            int[] sent = {0};
            producer.scheduleAtFixedRate(() -> {
                List<Event> events = new ArrayList<>(PER_SEND);
                long now = System.nanoTime();
                for (int i = 0; i < PER_SEND; i++) {
                    int seq = sent[0] + i;
                    int key = seq * 7919 % SourceBenchmark.KEYS;
                    events.add(Event.of("FileCreated", SourcePayload.of(seq, key, now))
                            .withPartitionKey(SourcePayload.key(key)));
                }
                pgque.producer().sendBatch(queue, events);
                sent[0] += PER_SEND;
            }, 0, periodMicros, TimeUnit.MICROSECONDS);

            double[] millis = new double[measured];
            double[] afterAppend = new double[measured];
            boolean[] seen = new boolean[measured];
            int got = 0;
            long deadline = System.nanoTime() + run.toNanos() + SourceBenchmark.DEADLINE.toNanos();
            while (got < measured) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only " + got + " of " + measured + " events reached " + queue);
                }
                for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(50))) {
                    long arrived = System.nanoTime();
                    String payload = new String(record.value(), StandardCharsets.UTF_8);
                    int seq = seqOf(payload);
                    if (seq < measured && !seen[seq]) {
                        seen[seq] = true;
                        millis[seq] = (arrived - SourcePayload.sentNanos(payload)) / 1e6;
                        // The topics stamp records with the broker's append time (wall clock).
                        afterAppend[seq] = System.currentTimeMillis() - record.timestamp();
                        got++;
                    }
                }
            }
            return new Latencies(millis, afterAppend);
        } finally {
            producer.shutdownNow();
            producer.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    private static int seqOf(String payload) {
        int at = payload.indexOf("\"seq\":") + 6;
        return Integer.parseInt(payload.substring(at, payload.indexOf(',', at)));
    }
}
