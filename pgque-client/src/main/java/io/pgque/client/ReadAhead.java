/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.Objects;

/**
 * A slot's next batch, read while the batch before it is still open (see
 * {@link SlotConsumer#readAhead}): it is opened, with the id it was read under, by
 * {@link SlotConsumer#ackAndOpen}; until then it is only read.
 *
 * @param fromTick the tick the batch starts after: where the slot stands once the open batch is acked
 * @param toTick   the tick the batch ends at
 * @param batch    its id, first page and the cursor over the rest
 * @param shared   whether its events were found by a scan another slot of a {@link ReadAheadGroup}
 *                 ran over the same window, so that reading it cost no scan of its own
 */
public record ReadAhead(long fromTick, long toTick, OpenedBatch batch, boolean shared) {

    public ReadAhead {
        Objects.requireNonNull(batch, "batch");
    }

    /** A batch read ahead by a scan of its own. */
    public ReadAhead(long fromTick, long toTick, OpenedBatch batch) {
        this(fromTick, toTick, batch, false);
    }

    public long batchId() {
        return batch.first().batchId();
    }

    /** Gives back the cursor's connection, for a read-ahead that will not be opened. Idempotent. */
    public void discard() {
        if (batch.rest() != null) {
            batch.rest().close();
        }
    }
}
