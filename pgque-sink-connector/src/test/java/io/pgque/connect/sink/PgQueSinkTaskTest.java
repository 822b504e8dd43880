/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.connect.sink.errors.BadRecordException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import static io.pgque.connect.sink.Fixtures.props;
import static io.pgque.connect.sink.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PgQueSinkTaskTest {

    private static PgQueSinkTask started(RecordingContext context, String... overrides) {
        PgQueSinkTask task = new PgQueSinkTask();
        task.initialize(context);
        task.start(noServer(overrides));
        return task;
    }

    /**
     * The fixture's config, pointed at a port where nothing listens: a task checks its login at
     * start, and a server that does not answer lets it start (whatever may listen on 5432 here).
     */
    private static Map<String, String> noServer(String... overrides) {
        Map<String, String> props = props(overrides);
        if (!List.of(overrides).contains("connection.url")) {
            try {
                props.put("connection.url", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/app");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return props;
    }

    @Test
    void emptyPutsAndSkippedTombstonesNeedNoWrite() throws IOException {
        // Nothing listens at this URL: a put that tried to write would fail or ask for a retry.
        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask task = started(context, "connection.url", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/app",
                "connection.timeout.ms", "1000", "connection.attempts", "1");
        assertDoesNotThrow(() -> task.put(List.of()));
        assertDoesNotThrow(() -> task.put(List.of(record("k", null))));
        assertEquals(List.of(), context.reported, "a skipped tombstone is not a bad record");
        assertEquals(List.of(), context.timeouts, "no retry was asked for");
        task.stop();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void badRecordsGoToTheReporter() {
        RecordingContext context = new RecordingContext(true);
        PgQueSinkTask task = started(context);
        SinkRecord bad = record("k", "not json");
        task.put(List.of(bad));
        assertEquals(List.of(bad), context.reported);
        assertTrue(context.reasons.get(0).contains("offset=42: value is not JSON"), context.reasons::toString);
    }

    @Test
    void withoutAReporterABadRecordFailsTheTask() {
        PgQueSinkTask task = started(new RecordingContext(false));
        BadRecordException e = assertThrows(BadRecordException.class, () -> task.put(List.of(record("k", "not json"))));
        assertTrue(e.getMessage().contains("topic=orders, partition=3, offset=42"), e.getMessage());
    }

    @Test
    void exactlyOnceNeedsTheConnectorNameThatKeysTheStoredOffsets() {
        PgQueSinkTask task = new PgQueSinkTask();
        task.initialize(new RecordingContext(true));
        ConfigException e = assertThrows(ConfigException.class, () -> task.start(noServer("pgque.delivery.guarantee", "exactly_once")));
        assertTrue(e.getMessage().contains("no 'name'"), e.getMessage());
    }
}
