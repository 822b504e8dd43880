/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Event;
import io.pgque.client.PgQue;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Fills a queue with keyed events, one tick per {@link #EVENTS_PER_TICK}, before anyone reads. */
final class SourceLoader {

    /** One tick per this many events: batches of ~1,000, split among the N slots. */
    static final int EVENTS_PER_TICK = 1_000;

    private SourceLoader() {
    }

    /** A batch id like the queue's for the {@code eventId}-th event: one per tick. */
    static long batchOf(long eventId) {
        return (eventId - 1) / EVENTS_PER_TICK + 1;
    }

    static void preload(Connection c, String queue, int events) throws SQLException {
        // Ticks come only from here while loading: a tick per send batch, all of equal size. No
        // huge ticker_max_count: since engine 0.4.0 a forced tick draws twice that many event ids.
        List<Event> batch = new ArrayList<>(EVENTS_PER_TICK);
        for (int seq = 0; seq < events; seq++) {
            int key = seq * 7919 % SourceBenchmark.KEYS;
            batch.add(Event.of("FileCreated", SourcePayload.of(seq, key, 0)).withPartitionKey(SourcePayload.key(key)));
            if (batch.size() == EVENTS_PER_TICK || seq == events - 1) {
                PgQue.using(c).producer().sendBatch(queue, batch);
                batch.clear();
                EngineBenchmark.tick(c, queue);
            }
        }
    }
}
