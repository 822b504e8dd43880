/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.probe.DatabaseProbe;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What validate() can only learn from the database itself: is the engine there, does the queue
 * exist, may the user consume (and tick), and, as a warning only, does the queue have other
 * partitioned consumers nobody has read for long. A consumer that exists with another N is no
 * problem: the tasks resize it. Read-only, and bounded in time, because a validate call must answer even
 * when the database does not: one {@link DatabaseProbe} connection, as the sink's validation
 * uses, not a pool.
 */
public final class DatabaseChecks {

    /** A function every consumer calls (pgque_reader has it). */
    private static final String CONSUME = "pgque.claim_slot(text, text, int, text, interval)";
    /** What pgque.failure.policy=pause calls: an engine from before the pause policy has no such function. */
    private static final String PAUSE = "pgque.pause_partitioned(text, text, int, int, text, pgque.message, interval, text)";
    /** What the ticker duty calls (pgque_ticker has them, and pgque_admin, a member of it). */
    private static final List<String> TICK = List.of("pgque.ticker_round(interval)", "pgque.maint()",
            "pgque.maint_rotate_tables_step2()", "pgque.maint_retry_events()");

    /**
     * How long a partitioned consumer of the queue may go without any lease before validate()
     * warns about it: far longer than a restart or a rebalance takes, so it names consumers whose
     * connector is stopped, paused or gone.
     */
    public static final Duration UNLEASED_WARNING = Duration.ofHours(1);

    private final SourceConfig config;
    private final Map<String, List<String>> problems = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();

    private DatabaseChecks(SourceConfig config) {
        this.config = config;
    }

    /**
     * What the checks found: problems by key (errors, empty when all checks passed) and warnings
     * (accepted, worth a line in the worker's log: Connect's validation result has no place for them).
     */
    public record Findings(Map<String, List<String>> problems, List<String> warnings) {
    }

    /** Runs the checks, bounded in time by connection.timeout.ms. */
    public static Findings run(SourceConfig config) {
        return DatabaseProbe.check(config.connection(), "pgque-source-validate", "the source's configuration",
                probe -> new DatabaseChecks(config).check(probe),
                problem -> new Findings(single(problem.key(), problem.message()), List.of()),
                new Findings(Map.of(), List.of()));
    }

    private Findings check(DatabaseProbe probe) throws SQLException {
        if (!probe.engineInstalled()) {
            if (config.schemaInstall() == SchemaInstall.NONE) {
                add(EngineConfigDef.SCHEMA_INSTALL, "the database has no pgque schema: install the engine, or set "
                        + EngineConfigDef.SCHEMA_INSTALL + "=if_missing");
            } else {
                probe.installProblem("install it beforehand and set " + EngineConfigDef.SCHEMA_INSTALL + "=none")
                        .ifPresent(problem -> add(EngineConfigDef.SCHEMA_INSTALL, problem));
            }
            add(SourceConfigDef.QUEUE, "queue '" + config.queue() + "' does not exist (the engine is not installed): "
                    + "install the engine, then create the queue as a role with pgque_admin (select "
                    + "pgque.create_queue('" + config.queue() + "')), or let the sink create it ("
                    + "pgque.queue.auto.create=true); or correct " + SourceConfigDef.QUEUE);
            return new Findings(problems, warnings);
        }
        // Rights first: without pgque_reader the queue checks below would only say "permission denied".
        if (checkRoles(probe)) {
            if (!probe.queueExists(config.queue())) {
                add(SourceConfigDef.QUEUE, "queue '" + config.queue() + "' does not exist in database '"
                        + probe.currentDatabase() + "': create it as a role with pgque_admin (select "
                        + "pgque.create_queue('" + config.queue() + "')), or let the sink that writes to it create "
                        + "it (pgque.queue.auto.create=true), then validate again; or correct " + SourceConfigDef.QUEUE
                        + " if the name is wrong");
            } else {
                warnAboutUnleasedConsumers(probe);
            }
        }
        return new Findings(problems, warnings);
    }

    /** Consumers of the queue that nobody reads hold back its table rotation: say which, and how to remove them. */
    private void warnAboutUnleasedConsumers(DatabaseProbe probe) throws SQLException {
        probe.unleasedConsumers(config.queue(), config.consumer(), UNLEASED_WARNING).forEach((consumer, unleased) ->
                warnings.add("queue '" + config.queue() + "' has partitioned consumer '" + consumer + "', whose slots no "
                        + "task has held for " + unleased.toMinutes() + " minutes: nobody reads it, and it holds back "
                        + "the rotation of the queue's event tables, which grow meanwhile. If the connector that read it "
                        + "is gone for good, unsubscribe it: select pgque.unsubscribe_partitioned('" + config.queue()
                        + "', '" + consumer + "') (docs/operations.md, \"Remove a connector\")"));
    }

    /** @return whether the user may consume at all */
    private boolean checkRoles(DatabaseProbe probe) throws SQLException {
        // By right, not by role name: a database installed with pgque.role_prefix has roles of its
        // own (docs/operations.md, "Trust model"), and a superuser has every right.
        boolean reader = probe.canExecute(CONSUME);
        String user = probe.currentUser();
        if (!reader) {
            add(ConnectionConfigDef.USER, "user '" + user + "' cannot consume: grant it pgque_reader "
                    + "(or this database's reader role, when the engine was installed with pgque.role_prefix)");
        }
        if (reader && config.failurePolicy() == FailurePolicy.PAUSE && !probe.canExecute(PAUSE)) {
            add(SourceConfigDef.FAILURE_POLICY, SourceConfigDef.FAILURE_POLICY + "=pause needs an engine with the pause "
                    + "policy (pgque.pause_partitioned), which the engine in database '" + probe.currentDatabase()
                    + "' does not have: install the engine bundled with the connector, or set "
                    + SourceConfigDef.FAILURE_POLICY + "=skip");
        }
        if (config.tickerEnabled()) {
            for (String function : TICK) {
                if (!probe.canExecute(function)) {
                    add(SourceConfigDef.TICKER_ENABLED, SourceConfigDef.TICKER_ENABLED + "=true needs pgque_ticker (the "
                            + "ticker's own role: tick and maintain, nothing else), which user '" + user + "' does not "
                            + "have (it may not call " + function + "): grant it, or leave ticking to another scheduler");
                    break;
                }
            }
        }
        return reader;
    }

    private void add(String key, String message) {
        problems.computeIfAbsent(key, k -> new ArrayList<>()).add(message);
    }

    private static Map<String, List<String>> single(String key, String message) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        map.put(key, new ArrayList<>(List.of(message)));
        return map;
    }
}
