package io.pgque.connect.source.record;

import java.util.Map;

/**
 * Connect's source partition and offset for an event: partition {@code {queue, consumer, slot}},
 * offset {@code {batch_id, ev_id}}. In at-least-once mode the engine's slot cursor, not these
 * offsets, decides where reading resumes; they are stored for operators and for a later
 * exactly-once mode that must skip replayed batches.
 */
public final class SourceOffsets {

    public static final String QUEUE = "queue";
    public static final String CONSUMER = "consumer";
    public static final String SLOT = "slot";
    public static final String BATCH_ID = "batch_id";
    public static final String EVENT_ID = "ev_id";

    private SourceOffsets() {
    }

    public static Map<String, Object> partition(String queue, String consumer, int slot) {
        return Map.of(QUEUE, queue, CONSUMER, consumer, SLOT, slot);
    }

    public static Map<String, Object> offset(long batchId, long eventId) {
        return Map.of(BATCH_ID, batchId, EVENT_ID, eventId);
    }
}
