/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.offsets;

import java.util.Map;
import java.util.Optional;

/**
 * Where Kafka is for each slot, as far as the committed source offsets tell. Asked once after
 * each claim of a slot, before its first batch is emitted, so a batch that already reached
 * Kafka under a previous owner is not sent twice.
 */
@FunctionalInterface
public interface DeliveredPositions {

    /**
     * The last committed position under {@code sourcePartition} (a slot's or a cooperative
     * member's, see {@link SourceOffsets}), or empty when nothing was committed for it.
     */
    Optional<DeliveredPosition> lastDelivered(Map<String, Object> sourcePartition);

    /** At-least-once: nothing is looked up, every batch is emitted whole. */
    DeliveredPositions NONE = partition -> Optional.empty();
}
