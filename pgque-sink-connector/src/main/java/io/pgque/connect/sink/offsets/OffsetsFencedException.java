/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.offsets;

import org.apache.kafka.connect.errors.ConnectException;

import java.sql.SQLException;
import java.util.List;

/**
 * The database refused to move the stored offsets because one of them is not what this task
 * expected: another task wrote the partition since (after a rebalance, or this task is the one
 * that lost it and is still writing). The put's transaction is rolled back; nothing of it is
 * stored. Not a transient failure: trying the same transaction again would be refused again.
 */
public final class OffsetsFencedException extends ConnectException {

    private static final long serialVersionUID = 1L;

    private final transient List<OffsetMove> moves;

    public OffsetsFencedException(List<OffsetMove> moves, SQLException cause) {
        super("Another writer moved the stored Kafka offsets: " + cause.getMessage(), cause);
        this.moves = List.copyOf(moves);
    }

    /** The moves that were refused (the partitions whose view must be read again). */
    public List<OffsetMove> moves() {
        return moves;
    }
}
