/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.delivery;

import io.pgque.connect.source.offsets.DeliveredPositions;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.junit.jupiter.api.Test;

import java.util.Collection;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a task's guarantee and its worker's transactions make of its delivery, chosen once. */
class DeliveryTest {

    private static final OffsetStorageReader NO_OFFSETS = new OffsetStorageReader() {
        @Override
        public <T> Map<String, Object> offset(Map<String, T> partition) {
            return null;
        }

        @Override
        public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
            return Map.of();
        }
    };

    private static final TransactionContext DRAWN = new TransactionContext() {
        @Override
        public void commitTransaction() {
        }

        @Override
        public void commitTransaction(SourceRecord record) {
        }

        @Override
        public void abortTransaction() {
        }

        @Override
        public void abortTransaction(SourceRecord record) {
        }
    };

    /** A worker's task context; {@code transactions} non-null: transaction.boundary=connector. */
    private static SourceTaskContext context(TransactionContext transactions) {
        return new SourceTaskContext() {
            @Override
            public Map<String, String> configs() {
                return Map.of();
            }

            @Override
            public OffsetStorageReader offsetStorageReader() {
                return NO_OFFSETS;
            }

            @Override
            public TransactionContext transactionContext() {
                return transactions;
            }

            @Override
            public PluginMetrics pluginMetrics() {
                return null;
            }
        };
    }

    @Test
    void atLeastOnceWithoutTransactionsResumesFromTheDatabaseAndMaySendAhead() {
        Delivery delivery = Delivery.forTask(context(null), false);
        assertFalse(delivery.exactlyOnce());
        assertSame(BatchBoundary.NONE, delivery.boundary());
        assertSame(DeliveredPositions.NONE, delivery.positions());
        assertTrue(delivery.allowsSendAhead());
    }

    @Test
    void exactlyOnceResumesFromKafkasOffsetsAndNeverSendsAhead() {
        Delivery workerDrawn = Delivery.forTask(context(null), true);
        assertTrue(workerDrawn.exactlyOnce());
        assertSame(BatchBoundary.WORKER, workerDrawn.boundary());
        assertNotSame(DeliveredPositions.NONE, workerDrawn.positions());
        assertFalse(workerDrawn.allowsSendAhead());

        Delivery taskDrawn = Delivery.forTask(context(DRAWN), true);
        assertTrue(taskDrawn.boundary().drawnByTask());
        assertFalse(taskDrawn.allowsSendAhead());
    }

    @Test
    void transactionsTheWorkerImposesOnAnAtLeastOnceConnectorStillForbidSendingAhead() {
        // transaction.boundary=connector comes with a transaction context whatever our guarantee.
        Delivery delivery = Delivery.forTask(context(DRAWN), false);
        assertFalse(delivery.exactlyOnce());
        assertTrue(delivery.boundary().transactional() && delivery.boundary().drawnByTask());
        assertSame(DeliveredPositions.NONE, delivery.positions());
        assertFalse(delivery.allowsSendAhead(), "a record goes to Kafka only with its transaction");
    }
}
