package io.pgque.connect.source.config;

import com.zaxxer.hikari.HikariDataSource;
import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.pool.DataSourceFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What validate() can only learn from the database itself: is the engine there, does the queue
 * exist, is the consumer already pinned to another N, may the user consume (and tick). Read-only,
 * and bounded in time, because a validate call must answer even when the database does not.
 */
public final class DatabaseChecks {

    private static final String PIN = "select n from pgque.partition_slot_status where queue_name = ? "
            + "and consumer = ? limit 1";
    private static final String ROLES = "select "
            + "coalesce((select pg_has_role(oid, 'USAGE') from pg_roles where rolname = 'pgque_reader'), false), "
            + "coalesce((select pg_has_role(oid, 'USAGE') from pg_roles where rolname = 'pgque_admin'), false), "
            + "(select rolsuper from pg_roles where rolname = current_user), current_user";

    private final SourceConfig config;
    private final Map<String, List<String>> problems = new LinkedHashMap<>();

    private DatabaseChecks(SourceConfig config) {
        this.config = config;
    }

    /** Problems by key; empty when all checks passed. Never waits much longer than {@code timeout}. */
    public static Map<String, List<String>> run(SourceConfig config, Duration timeout) {
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "pgque-source-validate");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Map<String, List<String>>> result = executor.submit(() -> new DatabaseChecks(config).check());
            return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return single(ConnectionConfigDef.URL, "the database did not answer within " + timeout.toMillis()
                    + " ms (" + ConnectionConfigDef.TIMEOUT_MS + "); is " + ConnectionConfigDef.URL + " right?");
        } catch (ExecutionException e) {
            return single(ConnectionConfigDef.URL, "cannot check the database: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return single(ConnectionConfigDef.URL, "interrupted while checking the database");
        } finally {
            executor.shutdownNow();
        }
    }

    private Map<String, List<String>> check() {
        try (HikariDataSource pool = DataSourceFactory.create(config.connection(), "pgque-source-validate");
             Connection c = pool.getConnection()) {
            c.setReadOnly(true);
            try (Statement s = c.createStatement()) {
                s.execute("set statement_timeout = " + Math.max(1, config.connection().timeoutMs()));
            }
            if (!schemaPresent(c)) {
                if (config.schemaInstall() == SchemaInstall.NONE) {
                    add(EngineConfigDef.SCHEMA_INSTALL, "the database has no pgque schema: install the engine, or set "
                            + EngineConfigDef.SCHEMA_INSTALL + "=if_missing");
                }
                add(SourceConfigDef.QUEUE, "queue '" + config.queue() + "' does not exist (the engine is not installed)");
                return problems;
            }
            // Roles first: without pgque_reader the queue checks below would only say "permission denied".
            if (checkRoles(c)) {
                checkQueue(c);
                if (config.mode() == SourceMode.ORDERED) {
                    checkPin(c);
                }
            }
        } catch (SQLException | RuntimeException e) {
            // The driver's messages name host and user at most, never the password.
            add(ConnectionConfigDef.URL, "cannot connect to or query the database: " + e.getMessage());
        }
        return problems;
    }

    private static boolean schemaPresent(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select 1 from pg_namespace where nspname = 'pgque'")) {
            return rs.next();
        }
    }

    private void checkQueue(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("select 1 from pgque.get_queue_info() where queue_name = ?")) {
            ps.setString(1, config.queue());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    add(SourceConfigDef.QUEUE, "queue '" + config.queue() + "' does not exist; create it first "
                            + "(select pgque.create_queue('" + config.queue() + "'))");
                }
            }
        }
    }

    private void checkPin(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(PIN)) {
            ps.setString(1, config.queue());
            ps.setString(2, config.consumer());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getInt(1) != config.slots()) {
                    int pinned = rs.getInt(1);
                    add(SourceConfigDef.SLOTS, "consumer '" + config.consumer() + "' of queue '" + config.queue()
                            + "' already exists with " + pinned + " slots, and N cannot change: set "
                            + SourceConfigDef.SLOTS + "=" + pinned + ", or choose another " + SourceConfigDef.CONSUMER);
                }
            }
        }
    }

    /** @return whether the user may consume at all */
    private boolean checkRoles(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(ROLES)) {
            rs.next();
            boolean reader = rs.getBoolean(1);
            boolean admin = rs.getBoolean(2);
            boolean superuser = rs.getBoolean(3);
            String user = rs.getString(4);
            if (!reader && !admin && !superuser) {
                add(ConnectionConfigDef.USER, "user '" + user + "' cannot consume: grant it pgque_reader "
                        + "(or pgque_admin)");
            }
            if (config.tickerEnabled() && !admin && !superuser) {
                add(SourceConfigDef.TICKER_ENABLED, SourceConfigDef.TICKER_ENABLED + "=true needs pgque_admin, which "
                        + "user '" + user + "' does not have: grant it, or leave ticking to another scheduler");
            }
            return reader || admin || superuser;
        }
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
