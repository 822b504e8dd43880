/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.validate;

import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.template.Template;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.config.QueueMap;
import io.pgque.connect.sink.config.QueueNames;
import org.apache.kafka.common.config.ConfigValue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the configuration expects of the database: the queues it will write to (each with the
 * key that names it), whether it may install the engine or create queues, whether it sends
 * with dedup, whether it holds events until a due time, whether it stores Kafka offsets (exactly
 * once). Read from the validation result, skipping keys that are already in error.
 */
record Expectations(Map<String, String> queueKeys, SchemaInstall schemaInstall, boolean autoCreate, boolean dedup,
                    boolean delays, boolean exactlyOnce) {

    private static final String TOPICS = "topics";
    private static final String TOPICS_REGEX = "topics.regex";

    static Expectations from(Map<String, ConfigValue> byName, Map<String, String> props) {
        Map<String, String> queues = new LinkedHashMap<>();
        Map<String, String> map = Map.of();
        if (valid(byName, PgQueSinkConfig.QUEUE_MAP)) {
            try {
                map = QueueMap.parse(PgQueSinkConfig.QUEUE_MAP, list(byName.get(PgQueSinkConfig.QUEUE_MAP)));
            } catch (RuntimeException e) {
                map = Map.of();
            }
        }
        map.values().forEach(queue -> queues.putIfAbsent(queue, PgQueSinkConfig.QUEUE_MAP));
        if (valid(byName, PgQueSinkConfig.QUEUE)) {
            addFromTemplate(queues, text(byName.get(PgQueSinkConfig.QUEUE)), map, props);
        }
        SchemaInstall install = valid(byName, EngineConfigDef.SCHEMA_INSTALL)
                ? LiveChecks.schemaInstall(value(byName.get(EngineConfigDef.SCHEMA_INSTALL)))
                : SchemaInstall.NONE;
        boolean autoCreate = valid(byName, PgQueSinkConfig.QUEUE_AUTO_CREATE)
                && Boolean.TRUE.equals(value(byName.get(PgQueSinkConfig.QUEUE_AUTO_CREATE)));
        boolean dedup = valid(byName, PgQueSinkConfig.DEDUP_KEY) && !text(byName.get(PgQueSinkConfig.DEDUP_KEY)).isEmpty();
        boolean delays = (valid(byName, PgQueSinkConfig.DELAY_HEADER) && !text(byName.get(PgQueSinkConfig.DELAY_HEADER)).isEmpty())
                || (valid(byName, PgQueSinkConfig.DELAY_MS) && value(byName.get(PgQueSinkConfig.DELAY_MS)) instanceof Long ms && ms > 0);
        boolean exactlyOnce = valid(byName, EngineConfigDef.DELIVERY_GUARANTEE)
                && "exactly_once".equalsIgnoreCase(text(byName.get(EngineConfigDef.DELIVERY_GUARANTEE)));
        return new Expectations(queues, install, autoCreate, dedup, delays, exactlyOnce);
    }

    // A fixed name is checked as is; a ${topic} template for each listed topic the map does not
    // cover. With topics.regex the topics are not known yet, so a template is not checked.
    private static void addFromTemplate(Map<String, String> queues, String source, Map<String, String> map,
                                        Map<String, String> props) {
        if (source.isEmpty()) {
            return;
        }
        Template template;
        try {
            template = Template.parse(PgQueSinkConfig.QUEUE, source, PgQueSinkConfig.QUEUE_PLACEHOLDERS);
        } catch (RuntimeException e) {
            return;
        }
        if (template.isConstant()) {
            queues.putIfAbsent(template.source(), PgQueSinkConfig.QUEUE);
            return;
        }
        if (!props.getOrDefault(TOPICS_REGEX, "").isBlank()) {
            return;
        }
        for (String raw : props.getOrDefault(TOPICS, "").split(",")) {
            String topic = raw.trim();
            if (!topic.isEmpty() && !map.containsKey(topic)) {
                String queue = template.render(placeholder -> topic);
                if (QueueNames.problem(queue) == null) {
                    queues.putIfAbsent(queue, PgQueSinkConfig.QUEUE);
                }
            }
        }
    }

    private static boolean valid(Map<String, ConfigValue> byName, String key) {
        ConfigValue value = byName.get(key);
        return value != null && value.errorMessages().isEmpty();
    }

    private static Object value(ConfigValue value) {
        return value == null ? null : value.value();
    }

    private static String text(ConfigValue value) {
        Object v = value(value);
        return v == null ? "" : v.toString().trim();
    }

    @SuppressWarnings("unchecked")
    private static List<String> list(ConfigValue value) {
        Object v = value(value);
        return v instanceof List<?> ? (List<String>) v : List.of();
    }
}
