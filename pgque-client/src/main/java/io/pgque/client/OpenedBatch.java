/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.util.Objects;

/**
 * A batch opened and read into a cursor in one step (see
 * {@link SlotConsumer#receiveThroughCursor}): its first page, and the cursor over the rest.
 *
 * @param first the first page; {@link BatchPage#full()} when the cursor may have more
 * @param rest  the open cursor after the first page, or null: the page is the whole batch, or it
 *              was read without a cursor and the rest (when the page is full) is read through
 *              {@link SlotConsumer#openRest}
 */
public record OpenedBatch(BatchPage first, BatchCursor rest) {

    public OpenedBatch {
        Objects.requireNonNull(first, "first");
        if (rest != null && !first.full()) {
            throw new IllegalArgumentException("a cursor follows a full first page only");
        }
    }
}
