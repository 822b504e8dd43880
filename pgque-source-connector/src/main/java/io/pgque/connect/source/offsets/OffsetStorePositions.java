/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.offsets;

import org.apache.kafka.connect.storage.OffsetStorageReader;

import java.util.Map;
import java.util.Optional;

/**
 * Committed positions read from Connect's offset store. With exactly-once source support the
 * worker reads the offsets topic to its end, committed transactions only, on every lookup; a
 * position found there was committed in the same Kafka transaction as the records up to it.
 */
public final class OffsetStorePositions implements DeliveredPositions {

    private final OffsetStorageReader reader;

    public OffsetStorePositions(OffsetStorageReader reader) {
        this.reader = reader;
    }

    @Override
    public Optional<DeliveredPosition> lastDelivered(Map<String, Object> sourcePartition) {
        return parse(reader.offset(sourcePartition));
    }

    /**
     * The position a stored offset stands for, or empty when there is none or it is not one of
     * ours (numbers come back from the offset store as Long or Integer, depending on size).
     */
    public static Optional<DeliveredPosition> parse(Map<String, Object> offset) {
        if (offset == null || !(offset.get(SourceOffsets.BATCH_ID) instanceof Number batch)
                || !(offset.get(SourceOffsets.EVENT_ID) instanceof Number event)) {
            return Optional.empty();
        }
        return Optional.of(new DeliveredPosition(batch.longValue(), event.longValue()));
    }
}
