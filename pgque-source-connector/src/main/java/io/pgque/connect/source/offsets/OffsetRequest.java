/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.offsets;

import org.apache.kafka.connect.errors.AlreadyExistsException;
import org.apache.kafka.connect.errors.ConnectException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Checks an operator's request to alter or reset source offsets (Connect's {@code PATCH} or
 * {@code DELETE /connectors/NAME/offsets}) before Connect stores it. Only exactly-once mode reads
 * the offsets back, to learn how much of a re-issued batch Kafka holds; an offset set for an
 * at-least-once connector, one that names another queue, consumer or slot, or one without a
 * batch and event id would never be read, so all are refused instead of stored quietly.
 */
public final class OffsetRequest {

    private OffsetRequest() {
    }

    /**
     * @param queue    the connector's queue
     * @param consumer the connector's logical consumer
     * @param slots    the connector's N
     * @throws ConnectException naming every partition and offset that is not one of ours
     */
    public static void check(String queue, String consumer, int slots,
                             Map<Map<String, ?>, Map<String, ?>> offsets) {
        check(offsets, partition -> partitionProblem(queue, consumer, slots, partition),
                "A source partition is {\"" + SourceOffsets.QUEUE + "\": \"" + queue + "\", \""
                        + SourceOffsets.CONSUMER + "\": \"" + consumer + "\", \"" + SourceOffsets.SLOT + "\": 0.."
                        + (slots - 1) + "}");
    }

    /**
     * The same for cooperative mode, whose source partitions name a worker instead of a slot.
     *
     * @throws ConnectException naming every partition and offset that is not one of ours
     */
    public static void checkCooperative(String queue, String consumer, Map<Map<String, ?>, Map<String, ?>> offsets) {
        check(offsets, partition -> memberPartitionProblem(queue, consumer, partition),
                "A source partition is {\"" + SourceOffsets.QUEUE + "\": \"" + queue + "\", \""
                        + SourceOffsets.CONSUMER + "\": \"" + consumer + "\", \"" + SourceOffsets.SUBCONSUMER
                        + "\": \"task-<i>\"}");
    }

    /**
     * An at-least-once connector resumes from its consumer's position in PgQue and never reads
     * Connect's offsets: an offset set or reset there would be stored, reported as done, and
     * change nothing. So every such request is refused, with the engine call that does move the
     * consumer. The refusal is Connect's {@link AlreadyExistsException}, the one exception of
     * the connector API its REST layer answers with a 4xx (409 Conflict, the request conflicting
     * with the connector's mode) rather than a 500.
     *
     * @param guaranteeKey the key that selects the delivery guarantee, named in the message
     * @param reset        whether every offset of the request is null (a reset)
     * @param howToMove    the SQL call that moves the consumer instead, with the runbook
     * @throws AlreadyExistsException always
     */
    public static void refuseAtLeastOnce(String guaranteeKey, boolean reset, String howToMove) {
        throw new AlreadyExistsException("Refusing to " + (reset ? "reset" : "alter") + " the offsets: the connector "
                + "runs at-least-once (" + guaranteeKey + "=at_least_once) and resumes from its consumer's position in "
                + "PgQue, never from Connect's offsets, so the request would change nothing. To read events again or "
                + "skip them, move the consumer in PgQue while the connector is stopped: " + howToMove
                + ". Connect's offsets are read only with " + guaranteeKey + "=exactly_once");
    }

    /** True when the request only forgets offsets: a {@code DELETE}, or a {@code PATCH} of nulls. */
    public static boolean isReset(Map<Map<String, ?>, Map<String, ?>> offsets) {
        return offsets.values().stream().allMatch(Objects::isNull);
    }

    private static void check(Map<Map<String, ?>, Map<String, ?>> offsets,
                              Function<Map<String, ?>, String> partitionProblem, String partitionForm) {
        List<String> problems = new ArrayList<>();
        offsets.forEach((partition, offset) -> {
            String problem = partitionProblem.apply(partition);
            if (problem == null && offset != null) {
                problem = offsetProblem(offset);
            }
            if (problem != null) {
                problems.add(partition + " -> " + offset + ": " + problem);
            }
        });
        if (!problems.isEmpty()) {
            throw new ConnectException("Refusing the offsets request: " + String.join("; ", problems)
                    + ". " + partitionForm + ", an offset {\"" + SourceOffsets.BATCH_ID + "\": <batch id>, \""
                    + SourceOffsets.EVENT_ID + "\": <last event id in Kafka>} or null to forget the slot's");
        }
    }

    private static String partitionProblem(String queue, String consumer, int slots, Map<String, ?> partition) {
        String problem = ownerProblem(queue, consumer, partition);
        if (problem != null) {
            return problem;
        }
        Object slot = partition.get(SourceOffsets.SLOT);
        if (!isWhole(slot) || ((Number) slot).longValue() < 0 || ((Number) slot).longValue() >= slots) {
            return "'" + SourceOffsets.SLOT + "' must be a slot number from 0 to " + (slots - 1);
        }
        if (partition.size() != 3) {
            return "only '" + SourceOffsets.QUEUE + "', '" + SourceOffsets.CONSUMER + "' and '"
                    + SourceOffsets.SLOT + "' belong in a source partition";
        }
        return null;
    }

    private static String memberPartitionProblem(String queue, String consumer, Map<String, ?> partition) {
        String problem = ownerProblem(queue, consumer, partition);
        if (problem != null) {
            return problem;
        }
        if (!(partition.get(SourceOffsets.SUBCONSUMER) instanceof String worker) || worker.isBlank()) {
            return "'" + SourceOffsets.SUBCONSUMER + "' must name a worker of the cooperative consumer, e.g. \"task-0\"";
        }
        if (partition.size() != 3) {
            return "only '" + SourceOffsets.QUEUE + "', '" + SourceOffsets.CONSUMER + "' and '"
                    + SourceOffsets.SUBCONSUMER + "' belong in a source partition";
        }
        return null;
    }

    private static String ownerProblem(String queue, String consumer, Map<String, ?> partition) {
        if (partition == null) {
            return "no source partition";
        }
        if (!queue.equals(partition.get(SourceOffsets.QUEUE))) {
            return "the connector reads queue '" + queue + "'";
        }
        if (!consumer.equals(partition.get(SourceOffsets.CONSUMER))) {
            return "the connector reads as consumer '" + consumer + "'";
        }
        return null;
    }

    private static String offsetProblem(Map<String, ?> offset) {
        for (String key : List.of(SourceOffsets.BATCH_ID, SourceOffsets.EVENT_ID)) {
            Object value = offset.get(key);
            if (!isWhole(value) || ((Number) value).longValue() < 0) {
                return "'" + key + "' must be a whole number of at least 0";
            }
        }
        return null;
    }

    /** The offsets REST API hands JSON numbers over as Integer or Long. */
    private static boolean isWhole(Object value) {
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
    }
}
