/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.client.Message;
import io.pgque.testing.PluginMetricsJmx;
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

    /**
     * The sink's plugin metrics, read over JMX from the running worker: events written, dedup hits,
     * records sent to the dead letter topic, puts and their time, and a transient failure (the
     * task's session killed while its write waits for a lock) that the task retried.
     */
    @Test
    void pluginMetricsCountWritesDedupHitsDeadLettersPutsAndTransientFailures() throws Exception {
        String name = "metered";
        cluster.connect.kafka().createTopic(name, 1);
        cluster.createQueue(name);
        QueueReader reader = new QueueReader(cluster.superuser(), name, "test");
        Map<String, String> config = SinkCluster.withDeadLetters(strictJsonConfig(name), name + "_dlq");
        config.put("pgque.dedup.key", "${header:id}");
        config.put("pgque.dedup.ttl.ms", "600000");
        cluster.start(config, 1);

        cluster.send(name, 0, "k", "{\"good\":1}", Map.of("id", "a"));
        cluster.send(name, 0, "k", "{\"good\":1}", Map.of("id", "a"));     // a dedup hit
        cluster.send(name, 0, "k", "{not json", Map.of("id", "x"));        // to the dead letter topic
        cluster.send(name, 0, "k", "{\"good\":2}", Map.of("id", "b"));
        cluster.flush();
        reader.awaitMessage(m -> "{\"good\":2}".equals(m.payload()), TIMEOUT, "the second good record");
        SinkCluster.await(() -> metric(name, "events-written-total") == 2 && metric(name, "dedup-hits-total") == 1
                && metric(name, "dead-letter-records-total") == 1, "events 2, dedup hits 1, dead letters 1; got "
                + metric(name, "events-written-total") + ", " + metric(name, "dedup-hits-total") + ", "
                + metric(name, "dead-letter-records-total"));
        assertTrue(metric(name, "put-total") >= 1, "puts counted");
        assertTrue(metric(name, "put-time-max-ms") > 0, "put time measured");
        assertEquals(0, metric(name, "transient-failures-total"));

        // The next write waits for a lock on the dedup table; its session is killed meanwhile.
        try (Connection lock = cluster.superuser().getConnection(); Statement s = lock.createStatement()) {
            lock.setAutoCommit(false);
            s.execute("lock table pgque.idem in exclusive mode");
            cluster.send(name, 0, "k", "{\"good\":3}", Map.of("id", "c"));
            cluster.flush();
            String blocked = "from pg_stat_activity where application_name like 'pgque-sink-" + name
                    + "%' and wait_event_type = 'Lock'";
            SinkCluster.await(() -> count(lock, "select count(*) " + blocked) > 0, "the sink's write to wait for the lock");
            assertEquals(1, count(lock, "select count(pg_terminate_backend(pid)) " + blocked));
            lock.rollback();
        }
        reader.awaitMessage(m -> "{\"good\":3}".equals(m.payload()), TIMEOUT, "the record written after the failure");
        SinkCluster.await(() -> metric(name, "events-written-total") == 3, "3 events written");
        assertTrue(metric(name, "transient-failures-total") >= 1, "the killed session counted as a transient failure");
        assertTrue(metric(name, "write-retries-total") + metric(name, "redeliveries-requested-total") >= 1,
                "and it was retried");
        assertEquals(0, metric(name, "offset-fencing-refusals-total"), "at-least-once has no fencing");
        cluster.connect.deleteConnector(name);
        SinkCluster.await(() -> metric(name, "events-written-total") == 0, "the task's metrics removed with it");
    }

    private static double metric(String connector, String name) {
        return PluginMetricsJmx.sum(connector, name);
    }

    private static long count(Connection c, String sql) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new AssertionError(sql + ": " + e.getMessage(), e);
        }
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
