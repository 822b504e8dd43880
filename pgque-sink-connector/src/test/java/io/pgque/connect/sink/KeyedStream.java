/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Records for the failure tests: {@code keys} keys in turn, each with its own sequence number,
 * as "key-3:17". Remembers what it sent, and checks the at-least-once promise on what arrived:
 * everything is there, and for each key the first delivery of each record follows its sequence
 * (a replay may repeat a suffix, never reorder what is new).
 */
final class KeyedStream {

    private final SinkCluster cluster;
    private final String topic;
    private final int keys;
    private final Map<String, String> headers;
    private final Map<String, Integer> nextSeq = new HashMap<>();
    private final Set<String> sent = new LinkedHashSet<>();
    private int next;

    KeyedStream(SinkCluster cluster, String topic, int keys) {
        this(cluster, topic, keys, Map.of());
    }

    /** Every record with {@code headers}. */
    KeyedStream(SinkCluster cluster, String topic, int keys, Map<String, String> headers) {
        this.cluster = cluster;
        this.topic = topic;
        this.keys = keys;
        this.headers = Map.copyOf(headers);
    }

    /** Sends {@code count} more records and waits until Kafka has them all. */
    void send(int count) {
        for (int i = 0; i < count; i++) {
            String key = "key-" + (next++ % keys);
            int seq = nextSeq.merge(key, 1, Integer::sum) - 1;
            String payload = key + ":" + seq;
            cluster.send(topic, null, key, payload, headers);
            sent.add(payload);
        }
        cluster.flush();
    }

    Set<String> sent() {
        return Set.copyOf(sent);
    }

    void assertFirstDeliveriesInOrder(List<Message> delivered) {
        Set<String> seen = new HashSet<>();
        Map<String, List<Integer>> firstSeqs = new HashMap<>();
        for (Message m : delivered) {
            if (seen.add(m.payload())) {
                String[] parts = m.payload().split(":");
                assertEquals(parts[0], m.partitionKey(), "the record key is the partition key");
                firstSeqs.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
            }
        }
        assertEquals(sent, seen, "every record arrived");
        firstSeqs.forEach((key, seqs) -> {
            for (int i = 0; i < seqs.size(); i++) {
                assertEquals(i, seqs.get(i), "first deliveries of " + key + " in offset order: " + seqs);
            }
        });
    }

    /** Exactly once: every record sent arrived, none twice, and each key's records in sequence. */
    void assertExactlyOnceInOrder(List<Message> delivered) {
        Map<String, Integer> counts = new HashMap<>();
        delivered.forEach(m -> counts.merge(m.payload(), 1, Integer::sum));
        List<String> twice = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).sorted().toList();
        assertEquals(List.of(), twice, "records that arrived more than once");
        assertEquals(sent.size(), delivered.size(), "as many events as records sent");
        assertFirstDeliveriesInOrder(delivered);
    }
}
