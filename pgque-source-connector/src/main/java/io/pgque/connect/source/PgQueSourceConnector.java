/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.version.BuildVersion;
import io.pgque.connect.source.config.DatabaseChecks;
import io.pgque.connect.source.config.SourceConfig;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.config.SourceConfigRules;
import io.pgque.connect.source.config.SourceMode;
import io.pgque.connect.source.config.TaskKeys;
import io.pgque.connect.source.coop.CoopTasks;
import io.pgque.connect.source.offsets.OffsetRequest;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads a PgQue queue into Kafka through the queue's hash slots: gives task {@code i} of
 * {@code M} the slots {@code k mod M = i}, and the ticker duty (when enabled) to every task, the
 * database deciding who ticks in each round. The data path, and making sure the consumer exists
 * with N slots, are in {@link PgQueSourceTask}. With {@code pgque.mode=cooperative} every task is
 * a worker of one cooperative consumer instead ({@code coop} package).
 */
public class PgQueSourceConnector extends SourceConnector {

    static final Supplier<String> VERSION = BuildVersion.lazily(PgQueSourceConnector.class, "version.properties");
    private static final Logger log = LoggerFactory.getLogger(PgQueSourceConnector.class);

    /** Where an operator reads how to move a consumer by hand. */
    private static final String RUNBOOK = "docs/source.md#rewind-or-skip-a-slot";

    private Map<String, String> props;
    private SourceConfig config;

    @Override
    public String version() {
        return VERSION.get();
    }

    @Override
    public ConfigDef config() {
        return SourceConfigDef.build();
    }

    /**
     * Checks the configuration only. The database work (engine, consumer and slots) is the
     * tasks' ({@link io.pgque.connect.source.task.SetupLoop}): a database that is down while
     * the connector is deployed must not leave it FAILED; live checks belong to validate().
     */
    @Override
    public void start(Map<String, String> props) {
        SourceConfig parsed = new SourceConfig(props);
        SourceConfigRules.require(parsed);
        this.props = new HashMap<>(props);
        this.config = parsed;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PgQueSourceTask.class;
    }

    /** Ordered mode: min(tasks.max, N) tasks, a slot being read by one task at a time. */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        if (config.mode() == SourceMode.COOPERATIVE) {
            return CoopTasks.taskConfigs(props, config.tickerEnabled(), maxTasks);
        }
        if (maxTasks > config.slots()) {
            log.info("Connector {} starts {} tasks, one per slot: {}={} is more than {}={}", props.get(
                    SourceConfigDef.CONNECTOR_NAME), config.slots(), SourceConfigDef.TASKS_MAX, maxTasks,
                    SourceConfigDef.SLOTS, config.slots());
        }
        return TaskKeys.taskConfigs(props, config.slots(), config.tickerEnabled(), maxTasks);
    }

    @Override
    public void stop() {
        // Nothing runs in the connector between start and stop; the tasks hold the leases.
    }

    /**
     * Supported when the configuration asks for it: every batch then goes into Kafka with its
     * source offset in one transaction, and a batch found in Kafka after a restart is acked
     * without being sent again.
     */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return SourceConfig.requestsExactlyOnce(connectorConfig)
                ? ExactlyOnceSupport.SUPPORTED : ExactlyOnceSupport.UNSUPPORTED;
    }

    /** Always: with {@code transaction.boundary=connector} each task ends a transaction after every poll's last record. */
    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return ConnectorTransactionBoundaries.SUPPORTED;
    }

    /**
     * Connect stores the offsets itself (they live in its offsets topic); the connector refuses
     * what would never be read: every request while it runs at-least-once (it resumes from its
     * consumer in PgQue; the refusal names the engine call that moves the consumer instead), and
     * partitions or offsets not of its form. In exactly-once mode, resetting a slot's offset
     * (null) is always safe: the slot's next re-issued batch is then sent whole, so at worst some
     * events reach Kafka twice. Setting one is a promise that Kafka holds the batch up to that
     * event: a new owner of the slot skips what it covers.
     */
    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<Map<String, ?>, Map<String, ?>> offsets) {
        SourceConfig parsed = new SourceConfig(connectorConfig);
        if (parsed.deliveryGuarantee() != DeliveryGuarantee.EXACTLY_ONCE) {
            OffsetRequest.refuseAtLeastOnce(EngineConfigDef.DELIVERY_GUARANTEE, OffsetRequest.isReset(offsets),
                    parsed.mode() == SourceMode.COOPERATIVE
                            ? "select pgque.register_consumer_at('" + parsed.queue() + "', '" + parsed.consumer()
                                    + "', <tick id>) (" + RUNBOOK + ")"
                            : "select pgque.reposition_slot('" + parsed.queue() + "', '" + parsed.consumer()
                                    + "', <slot>, <tick id, or null for the newest>) for each slot (" + RUNBOOK + ")");
        }
        if (parsed.mode() == SourceMode.COOPERATIVE) {
            OffsetRequest.checkCooperative(parsed.queue(), parsed.consumer(), offsets);
        } else {
            OffsetRequest.check(parsed.queue(), parsed.consumer(), parsed.slots(), offsets);
        }
        return true;
    }

    /**
     * Per-key checks first; then, if every key is well-formed, the rules between keys; then, if
     * those pass too, what only the live database can tell, within the connection timeout.
     */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        if (hasErrors(result)) {
            return result;
        }
        SourceConfig parsed;
        try {
            parsed = new SourceConfig(connectorConfigs);
        } catch (ConfigException e) {
            // Every key passed on its own; whatever is left is reported by start() with this message.
            return result;
        }
        Map<String, List<String>> problems = SourceConfigRules.check(parsed,
                connectorConfigs.get(SourceConfigDef.TASKS_MAX));
        SourceConfigRules.warnings(parsed, connectorConfigs.get(SourceConfigDef.TASKS_MAX))
                .forEach(warning -> log.warn("Connector {}: {}", connectorConfigs.get(SourceConfigDef.CONNECTOR_NAME),
                        warning));
        if (problems.isEmpty()) {
            DatabaseChecks.Findings findings = DatabaseChecks.run(parsed);
            problems = findings.problems();
            findings.warnings().forEach(warning -> log.warn("Connector {}: {}",
                    connectorConfigs.get(SourceConfigDef.CONNECTOR_NAME), warning));
        }
        for (ConfigValue value : result.configValues()) {
            for (String message : problems.getOrDefault(value.name(), List.of())) {
                value.addErrorMessage(message);
            }
        }
        return result;
    }

    private static boolean hasErrors(Config config) {
        for (ConfigValue value : config.configValues()) {
            if (!value.errorMessages().isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
