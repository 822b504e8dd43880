/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.validate;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.probe.DatabaseProbe;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The part of {@code validate()} that asks the database: can the connector log in, is the
 * engine installed (or may it be), do the target queues exist (or may they be created), and may
 * the role send. Runs only when the connection keys themselves are valid, and gives up after
 * {@code connection.timeout.ms}; each finding is filed under the key the user should change.
 */
public final class LiveChecks {

    private static final List<String> CONNECTION_KEYS = List.of(ConnectionConfigDef.URL, ConnectionConfigDef.USER,
            ConnectionConfigDef.PASSWORD, ConnectionConfigDef.TIMEOUT_MS, ConnectionConfigDef.SSL_MODE);

    private LiveChecks() {
    }

    /** Adds the live findings to the matching entries of a validation result. */
    public static void addTo(Config result, Map<String, String> props) {
        Map<String, ConfigValue> byName = new HashMap<>();
        for (ConfigValue value : result.configValues()) {
            byName.put(value.name(), value);
        }
        for (String key : CONNECTION_KEYS) {
            ConfigValue value = byName.get(key);
            if (value != null && !value.errorMessages().isEmpty()) {
                return; // the user must fix the connection keys first; their errors are reported
            }
        }
        ConnectionSettings settings;
        try {
            settings = ConnectionSettings.from(new AbstractConfig(ConnectionConfigDef.addTo(new ConfigDef()), props, false));
        } catch (RuntimeException e) {
            return; // a connection key is invalid; ConfigDef has already reported it
        }
        Expectations expected = Expectations.from(byName, props);
        Findings findings = run(settings, expected);
        findings.errors().forEach((key, messages) -> {
            ConfigValue value = byName.computeIfAbsent(key, k -> {
                ConfigValue added = new ConfigValue(k);
                result.configValues().add(added);
                return added;
            });
            messages.forEach(value::addErrorMessage);
        });
    }

    private static Findings run(ConnectionSettings settings, Expectations expected) {
        return DatabaseProbe.check(settings, "pgque-sink-validate", "the sink's configuration", probe -> {
            Findings findings = new Findings();
            new SinkDatabaseRules(probe, expected, findings).check();
            return findings;
        }, problem -> {
            Findings findings = new Findings();
            findings.add(problem.key(), problem.message());
            return findings;
        }, new Findings());
    }

    /** Which schema install mode applies; {@code none} when the key is invalid (its error is reported). */
    static SchemaInstall schemaInstall(Object value) {
        try {
            return SchemaInstall.CHOICE.parse(EngineConfigDef.SCHEMA_INSTALL, value == null ? null : value.toString());
        } catch (RuntimeException e) {
            return SchemaInstall.NONE;
        }
    }
}
