/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.delivery;

import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * The {@link BatchBoundary} of every kind: with or without transactions, and drawn by the task
 * when it holds the worker's transaction context ({@code by}), else by nobody or the worker.
 */
record DrawnBoundary(boolean transactional, TransactionContext by) implements BatchBoundary {

    @Override
    public void transactionEndsAfter(SourceRecord last) {
        if (by != null) {
            by.commitTransaction(last);
        }
    }

    @Override
    public boolean drawnByTask() {
        return by != null;
    }

    @Override
    public void transactionEndsWithPoll() {
        if (by != null) {
            by.commitTransaction();
        }
    }
}
