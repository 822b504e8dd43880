/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.config.ValueConverter;
import io.pgque.connect.common.template.Template;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigException;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The source connector's configuration, parsed and typed. Construction fails on any key that
 * breaks its own rule; {@link SourceConfigRules} checks the rules between keys.
 */
public class SourceConfig extends AbstractConfig {

    private final String consumer;
    private final Template topic;

    public SourceConfig(Map<String, String> props) {
        super(SourceConfigDef.build(), props);
        String configured = getString(SourceConfigDef.CONSUMER).trim();
        String name = props.get(SourceConfigDef.CONNECTOR_NAME);
        this.consumer = configured.isEmpty() && name != null ? name.trim() : configured;
        this.topic = Template.parse(SourceConfigDef.TOPIC, getString(SourceConfigDef.TOPIC),
                SourceConfigDef.TOPIC_PLACEHOLDERS);
    }

    public ConnectionSettings connection() {
        return ConnectionSettings.from(this);
    }

    public SchemaInstall schemaInstall() {
        return SchemaInstall.CHOICE.parse(EngineConfigDef.SCHEMA_INSTALL, getString(EngineConfigDef.SCHEMA_INSTALL));
    }

    public DeliveryGuarantee deliveryGuarantee() {
        return DeliveryGuarantee.CHOICE.parse(EngineConfigDef.DELIVERY_GUARANTEE,
                getString(EngineConfigDef.DELIVERY_GUARANTEE));
    }

    /** Connect's own {@code exactly.once.support} is {@code required}: Connect refuses to run the connector without it. */
    public boolean connectRequiresExactlyOnce() {
        Object level = originals().get(SourceConfigDef.EXACTLY_ONCE_SUPPORT);
        return level != null && "required".equalsIgnoreCase(level.toString().trim());
    }

    /**
     * Whether raw connector settings ask for {@code exactly_once}; false for anything that does
     * not parse, which validation reports on its own. For the calls Connect makes before start().
     */
    public static boolean requestsExactlyOnce(Map<String, String> props) {
        String value = props.get(EngineConfigDef.DELIVERY_GUARANTEE);
        if (value == null) {
            return EngineConfigDef.DELIVERY_GUARANTEE_DEFAULT == DeliveryGuarantee.EXACTLY_ONCE;
        }
        try {
            return DeliveryGuarantee.CHOICE.parse(EngineConfigDef.DELIVERY_GUARANTEE, value)
                    == DeliveryGuarantee.EXACTLY_ONCE;
        } catch (ConfigException e) {
            return false;
        }
    }

    public String queue() {
        return getString(SourceConfigDef.QUEUE).trim();
    }

    /** The logical consumer: {@code pgque.consumer}, else the connector's name; empty if neither is known. */
    public String consumer() {
        return consumer;
    }

    public SourceMode mode() {
        return SourceMode.CHOICE.parse(SourceConfigDef.MODE, getString(SourceConfigDef.MODE));
    }

    /** N; only for {@link SourceMode#ORDERED}, where {@link SourceConfigRules} makes sure it is set. */
    public int slots() {
        Integer slots = getInt(SourceConfigDef.SLOTS);
        if (slots == null) {
            throw new ConfigException(SourceConfigDef.SLOTS + " is required with " + SourceConfigDef.MODE + "="
                    + SourceMode.CHOICE.label(SourceMode.ORDERED));
        }
        return slots;
    }

    /** Whether {@code pgque.slots} was given at all. */
    public boolean slotsSet() {
        return getInt(SourceConfigDef.SLOTS) != null;
    }

    public Template topic() {
        return topic;
    }

    public FailurePolicy failurePolicy() {
        return FailurePolicy.CHOICE.parse(SourceConfigDef.FAILURE_POLICY, getString(SourceConfigDef.FAILURE_POLICY));
    }

    /** With {@link FailurePolicy#PAUSE}: how long a paused event waits before it is read again. */
    public Duration failureRetry() {
        return Duration.ofMillis(getLong(SourceConfigDef.FAILURE_RETRY_MS));
    }

    public ValueFormat valueFormat() {
        return ValueFormat.CHOICE.parse(SourceConfigDef.VALUE_FORMAT, getString(SourceConfigDef.VALUE_FORMAT));
    }

    /**
     * The value converter named in the connector's own configuration ({@code value.converter}),
     * as a class name; empty when the worker's applies, which a connector cannot see.
     */
    public Optional<String> valueConverter() {
        return ValueConverter.named(originals());
    }

    /** The provenance headers every record carries. */
    public EventHeaders headers() {
        return EventHeaders.of(SourceConfigDef.headerNames(getList(SourceConfigDef.HEADERS)));
    }

    public KafkaPartitioner partitioner() {
        return KafkaPartitioner.CHOICE.parse(SourceConfigDef.PARTITIONER, getString(SourceConfigDef.PARTITIONER));
    }

    /** The target topic's partition count, from {@code pgque.kafka.partitions} or Connect's topic creation. */
    public OptionalInt kafkaPartitions() {
        Integer explicit = getInt(SourceConfigDef.PARTITIONS);
        if (explicit != null) {
            return OptionalInt.of(explicit);
        }
        Object creation = originals().get(SourceConfigDef.TOPIC_CREATION_PARTITIONS);
        if (creation != null) {
            try {
                int count = Integer.parseInt(creation.toString().trim());
                if (count >= 1) {
                    return OptionalInt.of(count);
                }
            } catch (NumberFormatException ignored) {
                // Connect validates its own key; an unusable value just means "not given"
            }
        }
        return OptionalInt.empty();
    }

    public Duration leaseTtl() {
        return Duration.ofMillis(getLong(SourceConfigDef.LEASE_TTL_MS));
    }

    public Duration pollInterval() {
        return Duration.ofMillis(getLong(SourceConfigDef.POLL_INTERVAL_MS));
    }

    /** Events per chunk of a slot of a consumer with {@code slots} slots (see {@link BatchSizes}). */
    public int batchMaxEvents(int slots) {
        return BatchSizes.chunk(getInt(SourceConfigDef.BATCH_MAX_EVENTS), slots);
    }

    /** Events per chunk of a cooperative worker, which reads one batch at a time. */
    public int cooperativeBatchMaxEvents() {
        Integer configured = getInt(SourceConfigDef.BATCH_MAX_EVENTS);
        return configured != null ? configured : BatchSizes.MIN_CHUNK;
    }

    /**
     * Events of one slot a catch-up batch may hold, for a consumer with {@code slots} slots; zero
     * when every batch is one tick (see {@link BatchSizes}).
     */
    public long batchCatchUpMaxEvents(int slots) {
        return BatchSizes.window(getLong(SourceConfigDef.BATCH_CATCHUP_MAX_EVENTS), batchMaxEvents(slots));
    }

    public boolean batchReadAhead() {
        return getBoolean(SourceConfigDef.BATCH_READ_AHEAD);
    }

    /** Whether a batch read ahead may go out before the one in front of it is acked; see the key's doc. */
    public boolean batchSendAhead() {
        return getBoolean(SourceConfigDef.BATCH_SEND_AHEAD);
    }

    /** Zero when the periodic log line is off. */
    public Duration metricsLogInterval() {
        return Duration.ofMillis(getLong(SourceConfigDef.METRICS_LOG_INTERVAL_MS));
    }

    public boolean tickerEnabled() {
        return getBoolean(SourceConfigDef.TICKER_ENABLED);
    }

    public Duration tickerInterval() {
        return Duration.ofMillis(getLong(SourceConfigDef.TICKER_INTERVAL_MS));
    }

    public Duration maintInterval() {
        return Duration.ofMillis(getLong(SourceConfigDef.MAINT_INTERVAL_MS));
    }

    public Duration retryInterval() {
        return Duration.ofMillis(getLong(SourceConfigDef.RETRY_INTERVAL_MS));
    }
}
