/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Message;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.SinkCluster.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Records that cannot become events, or that the database refuses: with errors.tolerance=all
 * they go to the dead letter topic with the reason in its headers and every good record around
 * them is written; without tolerance the task fails naming the record and the reason.
 */
class SinkBadRecordsIT {

    private static final String REASON_HEADER = "__connect.errors.exception.message";
    private static SinkCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = new SinkCluster("sink-bad-records", 1);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, String> strictJsonConfig(String name) {
        Map<String, String> config = cluster.sinkConfig(name, name, name);
        config.put("pgque.payload.format", "json");
        config.put("pgque.partition.key.required", "true");
        config.put("pgque.tombstones", "fail");
        return config;
    }

    @Test
    void toleratedBadRecordsGoToTheDeadLetterTopicWithTheirReasonAndGoodOnesAllArrive() throws Exception {
        String name = "bad_tolerated";
        String dlq = name + "_dlq";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        refuseInTheDatabase(name, "{\"poison\":true}");
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        cluster.start(SinkCluster.withDeadLetters(strictJsonConfig(name), dlq), 1);

        cluster.send(name, "k", "{\"good\":1}");
        cluster.send(name, "k", "{\"text\":\"a\u0000b\"}");      // offset 1: NUL
        cluster.send(name, "k", "{\"good\":2}");
        cluster.send(name, "k", "{not json");                   // offset 3: unparsable
        cluster.send(name, "k", "{\"good\":3}");
        cluster.send(name, null, "{\"no\":\"key\"}");           // offset 5: key required
        cluster.send(name, "k", "{\"good\":4}");
        cluster.send(name, "k", null);                          // offset 7: tombstone refused
        cluster.send(name, "k", "{\"poison\":true}");           // offset 8: refused by the database
        cluster.send(name, "k", "{\"good\":5}");
        cluster.flush();

        List<Message> messages = reader.awaitMessage(m -> "{\"good\":5}".equals(m.payload()), TIMEOUT, "the last good record");
        assertEquals(List.of("{\"good\":1}", "{\"good\":2}", "{\"good\":3}", "{\"good\":4}", "{\"good\":5}"),
                messages.stream().map(Message::payload).toList());

        ConsumerRecords<byte[], byte[]> dead = cluster.connect.kafka().consume(5, TIMEOUT.toMillis(), dlq);
        List<String> reasons = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : dead) {
            Map<String, String> headers = SinkCluster.headers(record);
            reasons.add(headers.get(REASON_HEADER));
            offsets.add(Long.parseLong(headers.get("__connect.errors.offset")));
        }
        assertEquals(5, reasons.size(), reasons::toString);
        assertEquals(List.of(1L, 3L, 5L, 7L, 8L), offsets.stream().sorted().toList());
        assertReason(reasons, "offset=1", "NUL");
        assertReason(reasons, "offset=3", "not JSON");
        assertReason(reasons, "offset=5", "no partition key");
        assertReason(reasons, "offset=7", "tombstone");
        assertReason(reasons, "offset=8", "the database refused the event");
        cluster.connect.deleteConnector(name);
    }

    @Test
    void withoutToleranceTheTaskFailsNamingTheRecordAndTheReason() throws Exception {
        String name = "bad_strict";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        cluster.start(strictJsonConfig(name), 1);

        cluster.send(name, "k", "{\"text\":\"a\u0000b\"}");
        cluster.flush();
        String trace = cluster.awaitFailedTaskTrace(name);

        assertTrue(trace.contains("Bad record at topic=" + name + ", partition=0, offset=0"), trace);
        assertTrue(trace.contains("NUL"), trace);
        cluster.connect.deleteConnector(name);
    }

    @Test
    void aRecordTheDatabaseRefusesFailsTheTaskWhenNotTolerated() throws Exception {
        String name = "bad_db_strict";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        refuseInTheDatabase(name, "{\"poison\":true}");
        cluster.start(strictJsonConfig(name), 1);

        cluster.send(name, "k", "{\"poison\":true}");
        cluster.flush();
        String trace = cluster.awaitFailedTaskTrace(name);

        assertTrue(trace.contains("Bad record at topic=" + name + ", partition=0, offset=0"), trace);
        assertTrue(trace.contains("the database refused the event") && trace.contains("23514"), trace);
        cluster.connect.deleteConnector(name);
    }

    private static void assertReason(List<String> reasons, String record, String reason) {
        assertTrue(reasons.stream().anyMatch(r -> r.contains(record) && r.contains(reason)),
                "a reason for " + record + " mentioning '" + reason + "' in " + reasons);
    }

    /** A CHECK on the queue's event tables: the database refuses exactly this payload. */
    private static void refuseInTheDatabase(String queue, String payload) throws Exception {
        try (Connection c = cluster.superuser().getConnection(); Statement s = c.createStatement()) {
            String table;
            try (ResultSet rs = s.executeQuery("select queue_data_pfx from pgque.queue where queue_name = '" + queue + "'")) {
                rs.next();
                table = rs.getString(1);
            }
            s.execute("alter table " + table + " add constraint refuse_poison check (ev_data <> '"
                    + payload.replace("'", "''") + "')");
        }
    }
}
