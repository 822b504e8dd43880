/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.config.EngineConfigDef;
import org.apache.kafka.common.config.ConfigException;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rules that tie two or more keys together, which ConfigDef's per-key validators cannot see.
 * Each problem is filed under the key a user should change, with a message that names it.
 */
public final class SourceConfigRules {

    private SourceConfigRules() {
    }

    /**
     * Problems with {@code config}, by key, in a stable order; empty when it is usable.
     *
     * @param tasksMax Connect's {@code tasks.max}, or null when unknown (e.g. inside a task)
     */
    public static Map<String, List<String>> check(SourceConfig config, String tasksMax) {
        Map<String, List<String>> problems = new LinkedHashMap<>();
        if (config.deliveryGuarantee() == DeliveryGuarantee.EXACTLY_ONCE && !config.connectRequiresExactlyOnce()) {
            // Without it Connect would run the connector on a worker without exactly-once support
            // (offsets then trail the records), and exactly_once would quietly mean at-least-once.
            add(problems, EngineConfigDef.DELIVERY_GUARANTEE, EngineConfigDef.DELIVERY_GUARANTEE
                    + "=exactly_once needs Connect's exactly-once source support: set "
                    + SourceConfigDef.EXACTLY_ONCE_SUPPORT + "=required in the connector configuration, and "
                    + "exactly.once.source.support=enabled on every worker");
        }
        ConnectionConfigDef.problems(config.values()).forEach((key, message) -> add(problems, key, message));
        checkMode(config, problems);
        if (config.consumer().isEmpty()) {
            add(problems, SourceConfigDef.CONSUMER, SourceConfigDef.CONSUMER
                    + " is empty and the connector has no name to use instead; set " + SourceConfigDef.CONSUMER);
        }
        long poll = config.pollInterval().toMillis();
        long ttl = config.leaseTtl().toMillis();
        if (poll * 2 >= ttl) {
            add(problems, SourceConfigDef.POLL_INTERVAL_MS, SourceConfigDef.POLL_INTERVAL_MS + "=" + poll
                    + " must be below half of " + SourceConfigDef.LEASE_TTL_MS + "=" + ttl
                    + ": polling renews the slot leases, which would otherwise expire between polls");
        }
        if (config.partitioner() == KafkaPartitioner.SLOT && config.kafkaPartitions().isEmpty()) {
            add(problems, SourceConfigDef.PARTITIONS, SourceConfigDef.PARTITIONER + "=slot needs the topic's "
                    + "partition count: set " + SourceConfigDef.PARTITIONS + " (or "
                    + SourceConfigDef.TOPIC_CREATION_PARTITIONS + ")");
        }
        checkValueConverter(config, problems);
        return problems;
    }

    /**
     * What is accepted but worth saying, for validate() to log: Connect lets a connector run
     * fewer tasks than {@code tasks.max} (Connect's REST result has no place for a warning).
     *
     * @param tasksMax Connect's {@code tasks.max}, or null when unknown
     */
    public static List<String> warnings(SourceConfig config, String tasksMax) {
        List<String> warnings = new ArrayList<>();
        Integer maxTasks = parseTasksMax(tasksMax);
        if (config.mode() == SourceMode.ORDERED && config.slotsSet() && maxTasks != null && maxTasks > config.slots()) {
            warnings.add(SourceConfigDef.TASKS_MAX + "=" + maxTasks + " is more than " + SourceConfigDef.SLOTS + "="
                    + config.slots() + ": a slot is read by one task at a time, so the connector runs "
                    + config.slots() + " task(s), one per slot");
        }
        return warnings;
    }

    /**
     * Keys that belong to one mode only. Filed under the key to remove or set, and saying what
     * the other mode would give, since the choice is what the user has to make.
     */
    private static void checkMode(SourceConfig config, Map<String, List<String>> problems) {
        String ordered = SourceConfigDef.MODE + "=" + SourceMode.CHOICE.label(SourceMode.ORDERED);
        String cooperative = SourceConfigDef.MODE + "=" + SourceMode.CHOICE.label(SourceMode.COOPERATIVE);
        if (config.mode() == SourceMode.ORDERED) {
            if (!config.slotsSet()) {
                add(problems, SourceConfigDef.SLOTS, SourceConfigDef.SLOTS + " is required with " + ordered
                        + " (the default): set the number of hash slots, 1.." + SourceConfigDef.MAX_SLOTS
                        + ", or choose " + cooperative + " (allowed values of " + SourceConfigDef.MODE + ": "
                        + String.join(", ", SourceMode.CHOICE.labels()) + ") if per-key order is not needed");
            }
            return;
        }
        if (config.slotsSet()) {
            add(problems, SourceConfigDef.SLOTS, SourceConfigDef.SLOTS + " applies only to " + ordered + ": "
                    + cooperative + " has no slots (tasks take whole batches in turn, without per-key order); "
                    + "remove " + SourceConfigDef.SLOTS + ", or set " + ordered + " to keep per-key order");
        }
        if (config.partitioner() == KafkaPartitioner.SLOT) {
            add(problems, SourceConfigDef.PARTITIONER, SourceConfigDef.PARTITIONER + "=slot needs slots, which "
                    + cooperative + " does not have: use " + SourceConfigDef.PARTITIONER + "=key, or " + ordered);
        }
        if (config.failurePolicy() == FailurePolicy.PAUSE) {
            add(problems, SourceConfigDef.FAILURE_POLICY, SourceConfigDef.FAILURE_POLICY + "=pause holds back a key on "
                    + "its slot, and " + cooperative + " has no slots (no per-key order to keep): set "
                    + SourceConfigDef.FAILURE_POLICY + "=skip (allowed values: "
                    + String.join(", ", FailurePolicy.CHOICE.labels()) + "), or " + ordered);
        }
        if (config.consumer().indexOf('.') >= 0) {
            add(problems, SourceConfigDef.CONSUMER, "consumer '" + config.consumer() + "' contains '.', which "
                    + cooperative + " cannot use (the engine names workers \"<consumer>.<worker>\"): set "
                    + SourceConfigDef.CONSUMER + " to a name without '.'");
        }
    }

    /**
     * The pairings that would fail or garble every record: byte[] values through StringConverter
     * (written as "[B@...") or JsonConverter (base64 text instead of the payload), and anything
     * but byte[] through ByteArrayConverter. Only a converter named in the connector's
     * configuration can be checked.
     */
    private static void checkValueConverter(SourceConfig config, Map<String, List<String>> problems) {
        String converter = config.valueConverter().orElse("");
        String format = SourceConfigDef.VALUE_FORMAT + "=" + ValueFormat.CHOICE.label(config.valueFormat());
        String bytes = SourceConfigDef.VALUE_FORMAT + "=" + ValueFormat.CHOICE.label(ValueFormat.BYTES);
        if (config.valueFormat() == ValueFormat.BYTES && converter.equals(SourceConfigDef.STRING_CONVERTER)) {
            add(problems, SourceConfigDef.VALUE_FORMAT, format + " gives byte[] values, which "
                    + SourceConfigDef.VALUE_CONVERTER + "=" + converter + " would write as \"[B@...\", not as the "
                    + "payload: set " + SourceConfigDef.VALUE_CONVERTER + "=" + SourceConfigDef.BYTE_ARRAY_CONVERTER
                    + ", or " + SourceConfigDef.VALUE_FORMAT + "=" + ValueFormat.CHOICE.label(ValueFormat.STRING));
        }
        if (config.valueFormat() == ValueFormat.BYTES && converter.equals(SourceConfigDef.JSON_CONVERTER)) {
            add(problems, SourceConfigDef.VALUE_FORMAT, format + " gives byte[] values, which "
                    + SourceConfigDef.VALUE_CONVERTER + "=" + converter + " would write as base64 text, not as the "
                    + "payload: set " + SourceConfigDef.VALUE_FORMAT + "=" + ValueFormat.CHOICE.label(ValueFormat.JSON)
                    + " (JSON payloads) or " + ValueFormat.CHOICE.label(ValueFormat.ENVELOPE) + ", or "
                    + SourceConfigDef.VALUE_CONVERTER + "=" + SourceConfigDef.BYTE_ARRAY_CONVERTER);
        }
        if (config.valueFormat() != ValueFormat.BYTES && converter.equals(SourceConfigDef.BYTE_ARRAY_CONVERTER)) {
            add(problems, SourceConfigDef.VALUE_FORMAT, SourceConfigDef.VALUE_CONVERTER + "=" + converter
                    + " takes only byte[] values, and " + format + " does not give them (every record would fail "
                    + "in the converter): set " + bytes + " for the payload's bytes, or another converter");
        }
    }

    /** Throws on the first problem; for start(), where Connect's validate() may have been skipped. */
    public static void require(SourceConfig config) {
        for (Map.Entry<String, List<String>> entry : check(config, null).entrySet()) {
            throw new ConfigException(entry.getValue().get(0));
        }
    }

    private static Integer parseTasksMax(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Integer.valueOf(text.trim());
        } catch (NumberFormatException e) {
            return null; // Connect reports its own key
        }
    }

    private static void add(Map<String, List<String>> problems, String key, String message) {
        problems.computeIfAbsent(key, k -> new ArrayList<>()).add(message);
    }
}
