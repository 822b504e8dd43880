/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.health;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;

/**
 * The pool's source of new connections, reporting each login to a {@link DatabaseHealth}: a
 * refused login or an unreachable server is the failure with the precise reason (the pool itself
 * only says that no connection came in time).
 */
final class ObservedDataSource implements DataSource {

    private final DataSource connections;
    private final DatabaseHealth health;

    ObservedDataSource(DataSource connections, DatabaseHealth health) {
        this.connections = connections;
        this.health = health;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return observed(connections::getConnection);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return observed(() -> connections.getConnection(username, password));
    }

    @FunctionalInterface
    private interface Login {
        Connection open() throws SQLException;
    }

    private Connection observed(Login login) throws SQLException {
        try {
            Connection connection = login.open();
            health.succeeded();
            return connection;
        } catch (SQLException | RuntimeException e) {
            health.failed(e);
            throw e;
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return connections.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        connections.setLogWriter(out);
    }

    /**
     * Ignored: the driver takes its login timeout per connection (driver property loginTimeout),
     * not the JVM-wide one of {@code DriverManager} that the pool would set here for every pool
     * of the worker.
     */
    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
