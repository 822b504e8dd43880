package io.pgque.connect.sink.validate;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.probe.DatabaseProbe;
import io.pgque.connect.common.probe.Unreachable;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The part of {@code validate()} that asks the database: can the connector log in, is the
 * engine installed (or may it be), do the target queues exist (or may they be created), and may
 * the role send. Runs only when the connection keys themselves are valid, and gives up after
 * {@code connection.timeout.ms}; each finding is filed under the key the user should change.
 */
public final class LiveChecks {

    private static final Logger log = LoggerFactory.getLogger(LiveChecks.class);

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
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pgque-sink-validate");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Findings> future = executor.submit(() -> probe(settings, expected));
            return future.get(settings.timeoutMs(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("Skipped the database checks of the sink's configuration: no answer from {} within {} ms ({}). "
                    + "Accepting the configuration; the tasks wait for the database. Check the host, port and firewall.",
                    settings.url(), settings.timeoutMs(), ConnectionConfigDef.TIMEOUT_MS);
            return new Findings();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Findings findings = new Findings();
            findings.add(ConnectionConfigDef.URL, "Interrupted while checking the database");
            return findings;
        } catch (ExecutionException e) {
            log.warn("Checking the database failed unexpectedly", e.getCause());
            Findings findings = new Findings();
            findings.add(ConnectionConfigDef.URL, "Checking the database failed: " + e.getCause());
            return findings;
        } finally {
            executor.shutdownNow();
        }
    }

    private static Findings probe(ConnectionSettings settings, Expectations expected) {
        Findings findings = new Findings();
        DatabaseProbe probe;
        try {
            probe = DatabaseProbe.open(settings, "pgque-sink-validate");
        } catch (java.sql.SQLException e) {
            String user = settings.user().isEmpty() ? "" : " as user '" + settings.user() + "'";
            if (Unreachable.is(e)) {
                log.warn("Skipped the database checks of the sink's configuration: cannot connect to {}{}: {}. "
                        + "Accepting the configuration; the tasks wait for the database.", settings.url(), user,
                        DatabaseProbe.describe(e, settings));
                return findings;
            }
            findings.add(ConnectionConfigDef.URL, "Cannot connect to " + settings.url() + user + ": "
                    + DatabaseProbe.describe(e, settings));
            return findings;
        }
        try (probe) {
            new SinkDatabaseRules(probe, expected, findings).check();
        } catch (java.sql.SQLException e) {
            findings.add(ConnectionConfigDef.URL, "Checking the database failed: " + DatabaseProbe.describe(e, settings));
        }
        return findings;
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
