/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.BatchCursor;
import io.pgque.client.Message;

import java.util.List;

/** The rest of an open batch, read a chunk at a time (a {@link BatchCursor} on a connection of its own). */
public interface RestOfBatch extends AutoCloseable {

    /** The next at most {@code max} events; fewer when the batch ends. */
    List<Message> next(int max);

    /** Gives the connection back. */
    @Override
    void close();

    static RestOfBatch of(BatchCursor cursor) {
        return new RestOfBatch() {
            @Override
            public List<Message> next(int max) {
                return cursor.next(max);
            }

            @Override
            public void close() {
                cursor.close();
            }
        };
    }
}
