/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ValueConverter;
import io.pgque.connect.common.template.PlaceholderKind;
import io.pgque.connect.common.template.Template;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rules that involve more than one key. Each message is filed under the key the user should
 * change and names the other keys involved. A rule is skipped when one of its keys already failed
 * on its own, so the user sees the root cause, not its echoes.
 */
public final class SinkConfigValidator {

    // Connect's own keys, read here because they decide which topics the queue routing must cover.
    static final String TOPICS = "topics";
    static final String TOPICS_REGEX = "topics.regex";

    private final Map<String, Object> parsed;
    private final Set<String> invalidKeys;
    private final Map<String, String> originals;
    private final Map<String, List<String>> errors = new LinkedHashMap<>();

    private SinkConfigValidator(Map<String, Object> parsed, Set<String> invalidKeys, Map<String, String> originals) {
        this.parsed = parsed;
        this.invalidKeys = invalidKeys;
        this.originals = originals;
    }

    /**
     * Checks the cross-field rules.
     *
     * @param parsed      key → parsed value, as {@code ConfigDef} parses them
     * @param invalidKeys keys that already failed their own validation
     * @param originals   the raw properties (for Connect's {@code topics} / {@code topics.regex})
     * @return key → messages; empty when every rule holds
     */
    public static Map<String, List<String>> check(Map<String, ?> parsed, Set<String> invalidKeys,
                                                  Map<String, String> originals) {
        SinkConfigValidator validator = new SinkConfigValidator(new HashMap<>(parsed), invalidKeys, originals);
        validator.dedupNeedsWindow();
        validator.dedupKeyMustVary();
        validator.delayWithoutDedup();
        validator.requiredKeyNeedsSource();
        validator.envelopeNeedsTextAndJson();
        validator.everyTopicHasQueue();
        validator.connectionRules();
        return validator.errors;
    }

    /** Adds the cross-field errors to the matching entries of a {@code ConfigDef.validate} result. */
    public static void addTo(Config config, Map<String, String> originals) {
        Map<String, Object> parsed = new HashMap<>();
        Set<String> invalid = new HashSet<>();
        Map<String, ConfigValue> byName = new HashMap<>();
        for (ConfigValue value : config.configValues()) {
            byName.put(value.name(), value);
            parsed.put(value.name(), value.value());
            if (!value.errorMessages().isEmpty()) {
                invalid.add(value.name());
            }
        }
        check(parsed, invalid, originals).forEach((key, messages) -> {
            ConfigValue value = byName.get(key);
            if (value == null) {
                value = new ConfigValue(key);
                config.configValues().add(value);
                byName.put(key, value);
            }
            messages.forEach(value::addErrorMessage);
        });
    }

    private void dedupNeedsWindow() {
        if (valid(PgQueSinkConfig.DEDUP_KEY, PgQueSinkConfig.DEDUP_TTL_MS)
                && !text(PgQueSinkConfig.DEDUP_KEY).isEmpty() && parsed.get(PgQueSinkConfig.DEDUP_TTL_MS) == null) {
            error(PgQueSinkConfig.DEDUP_TTL_MS, PgQueSinkConfig.DEDUP_TTL_MS + " is required when "
                    + PgQueSinkConfig.DEDUP_KEY + " is set: give the dedup window in milliseconds, 1 to "
                    + PgQueSinkConfig.DEDUP_TTL_MS_MAX);
        }
    }

    // A key without placeholders is the same for every record: all but the first record of each
    // window would be dropped, which is never what a user means by dedup.
    private void dedupKeyMustVary() {
        if (valid(PgQueSinkConfig.DEDUP_KEY) && !text(PgQueSinkConfig.DEDUP_KEY).isEmpty()) {
            Template key = Template.parse(PgQueSinkConfig.DEDUP_KEY, text(PgQueSinkConfig.DEDUP_KEY),
                    PgQueSinkConfig.RECORD_PLACEHOLDERS);
            if (key.isConstant()) {
                error(PgQueSinkConfig.DEDUP_KEY, PgQueSinkConfig.DEDUP_KEY + " has no placeholder, so every record "
                        + "would share one dedup key; use some of "
                        + PlaceholderKind.describe(PgQueSinkConfig.RECORD_PLACEHOLDERS) + ", or leave it empty to turn dedup off");
            }
        }
    }

    // A held event gets its event id only when it is due, and a dedup claim names the event it
    // dedups against: the two do not go together.
    private void delayWithoutDedup() {
        if (!valid(PgQueSinkConfig.DEDUP_KEY, PgQueSinkConfig.DELAY_HEADER, PgQueSinkConfig.DELAY_MS)
                || text(PgQueSinkConfig.DEDUP_KEY).isEmpty()) {
            return;
        }
        Object delay = parsed.get(PgQueSinkConfig.DELAY_MS);
        String delayKey = !text(PgQueSinkConfig.DELAY_HEADER).isEmpty() ? PgQueSinkConfig.DELAY_HEADER
                : delay instanceof Long ms && ms > 0 ? PgQueSinkConfig.DELAY_MS : null;
        if (delayKey != null) {
            error(delayKey, delayKey + " cannot be combined with " + PgQueSinkConfig.DEDUP_KEY + " (a held event has "
                    + "no event id for its dedup key until it is due): clear " + PgQueSinkConfig.DEDUP_KEY + ", or set "
                    + PgQueSinkConfig.DELAY_HEADER + " empty and " + PgQueSinkConfig.DELAY_MS + "=0");
        }
    }

    private void requiredKeyNeedsSource() {
        if (valid(PgQueSinkConfig.PARTITION_KEY, PgQueSinkConfig.PARTITION_KEY_REQUIRED)
                && Boolean.TRUE.equals(parsed.get(PgQueSinkConfig.PARTITION_KEY_REQUIRED))
                && PartitionKeySource.parse(PgQueSinkConfig.PARTITION_KEY, text(PgQueSinkConfig.PARTITION_KEY)).kind()
                        == PartitionKeySource.Kind.NONE) {
            error(PgQueSinkConfig.PARTITION_KEY_REQUIRED, PgQueSinkConfig.PARTITION_KEY_REQUIRED + "=true contradicts "
                    + PgQueSinkConfig.PARTITION_KEY + "=none: every record would be rejected; set "
                    + PgQueSinkConfig.PARTITION_KEY + " to record_key or header:NAME, or "
                    + PgQueSinkConfig.PARTITION_KEY_REQUIRED + " to false");
        }
    }

    // The envelope is read from the value's text, so a converter that parses it first (into a
    // Struct, or Avro's record) leaves nothing to read: every record would be a bad record. Only a
    // converter named in the connector's configuration can be checked; the worker's is invisible.
    private void envelopeNeedsTextAndJson() {
        if (!valid(PgQueSinkConfig.VALUE_ENVELOPE, PgQueSinkConfig.PAYLOAD_FORMAT)
                || ValueEnvelope.CHOICE.parse(PgQueSinkConfig.VALUE_ENVELOPE, text(PgQueSinkConfig.VALUE_ENVELOPE))
                        != ValueEnvelope.CONNECT_JSON) {
            return;
        }
        String envelope = PgQueSinkConfig.VALUE_ENVELOPE + "=" + ValueEnvelope.CHOICE.label(ValueEnvelope.CONNECT_JSON);
        String converter = ValueConverter.named(originals).orElse("");
        if (!converter.isEmpty() && !converter.equals(ValueConverter.BYTE_ARRAY) && !converter.equals(ValueConverter.STRING)) {
            error(PgQueSinkConfig.VALUE_ENVELOPE, envelope + " reads the envelope's JSON text, but "
                    + ValueConverter.KEY + "=" + converter + " does not hand the sink that text (it parses the "
                    + "value first): set " + ValueConverter.KEY + "=" + ValueConverter.BYTE_ARRAY + " (or "
                    + ValueConverter.STRING + "), or " + PgQueSinkConfig.VALUE_ENVELOPE + "="
                    + ValueEnvelope.CHOICE.label(ValueEnvelope.NONE) + " to let " + converter + " read the values");
        }
        PayloadFormat format = PayloadFormat.CHOICE.parse(PgQueSinkConfig.PAYLOAD_FORMAT, text(PgQueSinkConfig.PAYLOAD_FORMAT));
        if (format != PayloadFormat.JSON) {
            error(PgQueSinkConfig.VALUE_ENVELOPE, envelope + " stores the payload as JSON and needs "
                    + PgQueSinkConfig.PAYLOAD_FORMAT + "=json, not " + PayloadFormat.CHOICE.label(format)
                    + ": set " + PgQueSinkConfig.PAYLOAD_FORMAT + "=json, or " + PgQueSinkConfig.VALUE_ENVELOPE + "="
                    + ValueEnvelope.CHOICE.label(ValueEnvelope.NONE));
        }
    }

    // Routing must be decidable from the configuration, so no record ever waits on a missing rule.
    private void everyTopicHasQueue() {
        if (!valid(PgQueSinkConfig.QUEUE, PgQueSinkConfig.QUEUE_MAP)) {
            return;
        }
        String queue = text(PgQueSinkConfig.QUEUE);
        @SuppressWarnings("unchecked")
        List<String> mapEntries = (List<String>) parsed.getOrDefault(PgQueSinkConfig.QUEUE_MAP, List.of());
        Map<String, String> map = QueueMap.parse(PgQueSinkConfig.QUEUE_MAP, mapEntries == null ? List.of() : mapEntries);
        List<String> topics = topics();
        String regex = originals.getOrDefault(TOPICS_REGEX, "").trim();

        if (queue.isEmpty()) {
            if (map.isEmpty()) {
                error(PgQueSinkConfig.QUEUE, PgQueSinkConfig.QUEUE + " is required unless " + PgQueSinkConfig.QUEUE_MAP
                        + " names a queue for every topic; give a queue name or a template such as ${topic}");
            } else if (!regex.isEmpty()) {
                error(PgQueSinkConfig.QUEUE, PgQueSinkConfig.QUEUE + " is required with " + TOPICS_REGEX
                        + ": topics matched later may be missing from " + PgQueSinkConfig.QUEUE_MAP);
            } else {
                List<String> unmapped = new ArrayList<>();
                for (String topic : topics) {
                    if (!map.containsKey(topic)) {
                        unmapped.add(topic);
                    }
                }
                if (!unmapped.isEmpty()) {
                    error(PgQueSinkConfig.QUEUE_MAP, "topics " + unmapped + " have no queue: add them to "
                            + PgQueSinkConfig.QUEUE_MAP + " or set " + PgQueSinkConfig.QUEUE);
                }
            }
            return;
        }
        Template template = Template.parse(PgQueSinkConfig.QUEUE, queue, PgQueSinkConfig.QUEUE_PLACEHOLDERS);
        for (String topic : topics) {
            if (!map.containsKey(topic)) {
                String problem = QueueNames.problem(template.render(placeholder -> topic));
                if (problem != null) {
                    error(PgQueSinkConfig.QUEUE, "for topic '" + topic + "': " + problem + "; map the topic in "
                            + PgQueSinkConfig.QUEUE_MAP);
                }
            }
        }
    }

    private List<String> topics() {
        List<String> topics = new ArrayList<>();
        for (String topic : originals.getOrDefault(TOPICS, "").split(",")) {
            if (!topic.trim().isEmpty()) {
                topics.add(topic.trim());
            }
        }
        return topics;
    }

    private void connectionRules() {
        ConnectionConfigDef.problems(parsed, invalidKeys).forEach(this::error);
    }

    private boolean valid(String... keys) {
        for (String key : keys) {
            if (invalidKeys.contains(key)) {
                return false;
            }
        }
        return true;
    }

    private String text(String key) {
        Object value = parsed.get(key);
        return value == null ? "" : value.toString().trim();
    }

    private void error(String key, String message) {
        errors.computeIfAbsent(key, k -> new ArrayList<>()).add(message);
    }
}
