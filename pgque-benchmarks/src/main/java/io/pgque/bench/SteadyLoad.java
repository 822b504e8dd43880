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
    /** Events per producer transaction: {@code -Dsource.latency.per.transaction} (10). */
    static final int PER_SEND = Integer.getInteger("source.latency.per.transaction", 10);
    /** Payload size: {@code -Dsource.latency.payload.bytes} (~1 KB). */
    static final int PAYLOAD_BYTES = Integer.getInteger("source.latency.payload.bytes", 1_000);

    /** One producer transaction of the load: the events' sequence numbers, keys and payloads. */
    interface Sends {
        /** Sends {@code payloads} (keyed by {@code keys}) in one transaction; the ids the events got, or null. */
        List<Long> send(List<String> keys, List<String> payloads) throws Exception;
    }

    private SteadyLoad() {
    }

    /** Events into PgQue queue {@code queue}, each keyed, in one {@code send_batch} call a transaction. */
    static Sends intoQueue(Connection c, String queue) {
        PgQue pgque = PgQue.using(c);
        return (keys, payloads) -> {
            List<Event> events = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                events.add(Event.of("FileCreated", payloads.get(i)).withPartitionKey(keys.get(i)));
            }
            return pgque.producer().sendBatch(queue, events);
        };
    }

    /**
     * Measures the events sent in the first {@code run} at {@code rate} events per second; the
     * producer goes on until the last of them has arrived, so they are ticked like all the
     * others instead of waiting out {@code ticker_max_lag} at the end of the run. Events go into
     * queue {@code topic} as PgQue events, each keyed.
     */
    static Latencies measure(BenchServer server, SourceKafkaSide kafka, String queue, int rate, Duration run,
                             LatencyTrace trace) throws Exception {
        try (Connection c = server.connect()) {
            return measure(kafka, queue, rate, run, trace, intoQueue(c, queue));
        }
    }

    /** As above, the events sent by {@code sends} and read from topic {@code topic}. */
    static Latencies measure(SourceKafkaSide kafka, String topic, int rate, Duration run, LatencyTrace trace,
                             Sends sends) throws Exception {
        int measured = (int) (run.toMillis() * rate / 1000);
        long periodMicros = 1_000_000L * PER_SEND / rate;
        ScheduledExecutorService producer = SourceBenchmark.daemonScheduler("bench-producer");
        try (KafkaConsumer<byte[], byte[]> reader = kafka.readerFromStart(topic)) {
            int[] sent = {0};
            producer.scheduleAtFixedRate(() -> {
                List<String> keys = new ArrayList<>(PER_SEND);
                List<String> payloads = new ArrayList<>(PER_SEND);
                long now = System.nanoTime();
                for (int i = 0; i < PER_SEND; i++) {
                    int seq = sent[0] + i;
                    int key = seq * 7919 % SourceBenchmark.KEYS;
                    keys.add(SourcePayload.key(key));
                    payloads.add(SourcePayload.of(seq, key, now, PAYLOAD_BYTES));
                }
                try {
                    List<Long> ids = sends.send(keys, payloads);
                    if (trace != null) {
                        trace.committed(sent[0], ids, System.nanoTime());
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("a send failed", e);
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
                    throw new IllegalStateException("only " + got + " of " + measured + " events reached " + topic);
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

    static int seqOf(String payload) {
        int at = payload.indexOf("\"seq\":") + 6;
        return Integer.parseInt(payload.substring(at, payload.indexOf(',', at)));
    }
}
