/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.ScanSharing;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link ScanSharing} of one source connector's tasks in this worker: one scan of a window
 * serves the slots of all of them. Connect hands a task nothing but its configuration, so the
 * tasks find their connector's sharing here, by the connector's name and database: each task
 * {@link #hold}s it from its start to its stop; the first opens it, the last closes it, and what
 * another connector reads (even the same consumer of the same database) never shares a scan with
 * it.
 */
public final class ConnectorScans {

    /** A connector's tasks in this worker, on its database (a name is unique in one Connect cluster only). */
    private record Key(String connector, String url) {
    }

    /** A sharing and the tasks that hold it. */
    private static final class Held {
        final ScanSharing sharing;
        int holders;

        Held(ScanSharing sharing) {
            this.sharing = sharing;
        }
    }

    private static final Map<Key, Held> HELD = new HashMap<>();

    private ConnectorScans() {
    }

    /** One task's hold on its connector's sharing; closing it lets go, once. */
    public static final class Hold implements AutoCloseable {
        private final Key key;
        private final ScanSharing sharing;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Hold(Key key, ScanSharing sharing) {
            this.key = key;
            this.sharing = sharing;
        }

        public ScanSharing sharing() {
            return sharing;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                release(key);
            }
        }
    }

    /** The sharing of {@code connector}'s tasks on the database {@code url} names, held until the hold is closed. */
    public static Hold hold(String connector, String url) {
        Key key = new Key(connector, url);
        synchronized (HELD) {
            Held held = HELD.computeIfAbsent(key, k -> new Held(new ScanSharing("source connector " + connector)));
            held.holders++;
            return new Hold(key, held.sharing);
        }
    }

    private static void release(Key key) {
        synchronized (HELD) {
            Held held = HELD.get(key);
            if (held != null && --held.holders == 0) {
                HELD.remove(key);
                held.sharing.close();
            }
        }
    }

    /**
     * The slots of {@code consumer} that {@code connector}'s tasks here read through its sharing, by
     * N; empty when no task holds it (a stopped connector's tasks must leave nothing).
     */
    public static Map<Integer, Set<Integer>> joined(String connector, String url, String queue, String consumer) {
        synchronized (HELD) {
            Held held = HELD.get(new Key(connector, url));
            return held == null ? Map.of() : held.sharing.joined(queue, consumer);
        }
    }

    /** Whether a task of {@code connector} holds its sharing in this worker. */
    public static boolean held(String connector, String url) {
        synchronized (HELD) {
            return HELD.containsKey(new Key(connector, url));
        }
    }
}
