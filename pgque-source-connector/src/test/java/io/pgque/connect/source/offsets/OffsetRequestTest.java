/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.offsets;

import org.apache.kafka.connect.errors.AlreadyExistsException;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OffsetRequestTest {

    private static Map<String, Object> partition(String queue, String consumer, Object slot) {
        Map<String, Object> partition = new HashMap<>();
        partition.put(SourceOffsets.QUEUE, queue);
        partition.put(SourceOffsets.CONSUMER, consumer);
        partition.put(SourceOffsets.SLOT, slot);
        return partition;
    }

    private static Map<String, Object> offset(Object batch, Object event) {
        Map<String, Object> offset = new HashMap<>();
        offset.put(SourceOffsets.BATCH_ID, batch);
        offset.put(SourceOffsets.EVENT_ID, event);
        return offset;
    }

    private static String refused(Map<Map<String, ?>, Map<String, ?>> request) {
        return assertThrows(ConnectException.class, () -> OffsetRequest.check("orders", "to-kafka", 4, request))
                .getMessage();
    }

    /** Neither a set nor a reset would be read back, so both are refused, as a 4xx of Connect's REST API. */
    @Test
    void anAtLeastOnceConnectorRefusesSetsAndResetsNamingTheCallThatMovesTheConsumer() {
        Map<Map<String, ?>, Map<String, ?>> set = new HashMap<>();
        set.put(partition("orders", "to-kafka", 1), offset(7L, 70L));
        Map<Map<String, ?>, Map<String, ?>> reset = new HashMap<>();
        reset.put(partition("orders", "to-kafka", 1), null);
        assertFalse(OffsetRequest.isReset(set));
        assertTrue(OffsetRequest.isReset(reset));
        assertTrue(OffsetRequest.isReset(Map.of()), "a DELETE with no stored offset");

        String message = assertThrows(AlreadyExistsException.class, () -> OffsetRequest.refuseAtLeastOnce(
                "pgque.delivery.guarantee", false, "select pgque.reposition_slot(...)")).getMessage();
        assertTrue(message.startsWith("Refusing to alter the offsets") && message.contains("pgque.delivery.guarantee=at_least_once")
                && message.contains("would change nothing") && message.contains("select pgque.reposition_slot(...)")
                && message.contains("pgque.delivery.guarantee=exactly_once"), message);
        message = assertThrows(AlreadyExistsException.class, () -> OffsetRequest.refuseAtLeastOnce(
                "pgque.delivery.guarantee", true, "x")).getMessage();
        assertTrue(message.startsWith("Refusing to reset the offsets"), message);
    }

    @Test
    void acceptsOffsetsOfItsOwnSlotsAndResets() {
        Map<Map<String, ?>, Map<String, ?>> request = new HashMap<>();
        request.put(partition("orders", "to-kafka", 0), offset(12, 340L)); // JSON numbers: Integer or Long
        request.put(partition("orders", "to-kafka", 3L), null);
        assertDoesNotThrow(() -> OffsetRequest.check("orders", "to-kafka", 4, request));
    }

    @Test
    void refusesPartitionsItWouldNeverRead() {
        String message = refused(Map.of(partition("refunds", "to-kafka", 0), offset(1, 2)));
        assertTrue(message.contains("the connector reads queue 'orders'"), message);
        assertTrue(message.contains("refunds"), "names the partition: " + message);

        message = refused(Map.of(partition("orders", "elsewhere", 0), offset(1, 2)));
        assertTrue(message.contains("as consumer 'to-kafka'"), message);

        message = refused(Map.of(partition("orders", "to-kafka", 4), offset(1, 2)));
        assertTrue(message.contains("slot number from 0 to 3"), message);

        message = refused(Map.of(partition("orders", "to-kafka", "1"), offset(1, 2)));
        assertTrue(message.contains("slot number from 0 to 3"), message);
    }

    @Test
    void refusesOffsetsWithoutAWholeBatchAndEventId() {
        String message = refused(Map.of(partition("orders", "to-kafka", 1), Map.of(SourceOffsets.BATCH_ID, 5)));
        assertTrue(message.contains("'ev_id' must be a whole number"), message);

        message = refused(Map.of(partition("orders", "to-kafka", 1), offset(-1, 2)));
        assertTrue(message.contains("'batch_id' must be a whole number of at least 0"), message);

        message = refused(Map.of(partition("orders", "to-kafka", 1), offset(1.5, 2)));
        assertTrue(message.contains("'batch_id'"), message);
        assertTrue(message.contains("{\"batch_id\": <batch id>"), "says what an offset looks like: " + message);
    }

    @Test
    void cooperativeModeAcceptsWorkerPartitionsOnly() {
        Map<Map<String, ?>, Map<String, ?>> request = new HashMap<>();
        request.put(SourceOffsets.memberPartition("orders", "to-kafka", "task-1"), offset(12, 340L));
        request.put(SourceOffsets.memberPartition("orders", "to-kafka", "task-0"), null);
        assertDoesNotThrow(() -> OffsetRequest.checkCooperative("orders", "to-kafka", request));

        String message = assertThrows(ConnectException.class, () -> OffsetRequest.checkCooperative("orders",
                "to-kafka", Map.of(partition("orders", "to-kafka", 0), offset(1, 2)))).getMessage();
        assertTrue(message.contains("'subconsumer' must name a worker"), message);
        assertTrue(message.contains("\"subconsumer\": \"task-<i>\""), "says what a partition looks like: " + message);
    }
}
