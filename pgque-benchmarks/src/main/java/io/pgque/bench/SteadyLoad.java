/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Event;
import io.pgque.client.PgQue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;

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
        return measure(server, kafka, queue, rate, run, null);
    }

    /** As {@link #measure(BenchServer, SourceKafkaSide, String, int, Duration)}, each event's stages into {@code trace} (null: none). */
    static Latencies measure(BenchServer server, SourceKafkaSide kafka, String queue, int rate, Duration run,
                             LatencyTrace trace) throws Exception {
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
                List<Long> ids = pgque.producer().sendBatch(queue, events);
                if (trace != null) {
                    trace.committed(sent[0], ids, System.nanoTime());
                }
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
                        if (trace != null) {
                            trace.arrived(seq, SourcePayload.sentNanos(payload), header(record, PolledStamp.HEADER),
                                    record.timestamp(), arrived, header(record, "pgque.batch.id"));
                        }
                        got++;
                    }
                }
            }
            producer.shutdown();
            if (!producer.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the producer did not stop within 10 s");
            }
            // Read once the producer has stopped: its thread wrote it.
            return new Latencies(millis, afterAppend, sent[0]);
        } finally {
            producer.shutdownNow();
            producer.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** A header written as text (Connect's default header converter), or 0 when the record has none. */
    private static long header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? 0 : Long.parseLong(new String(header.value(), StandardCharsets.UTF_8));
    }

    private static int seqOf(String payload) {
        int at = payload.indexOf("\"seq\":") + 6;
        return Integer.parseInt(payload.substring(at, payload.indexOf(',', at)));
    }
}
