/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * Connections to a real PostgreSQL that fail once, on purpose, at a chosen statement: the
 * {@code nth} statement whose SQL contains a fragment (e.g. {@code "ack_partitioned"}) fails the
 * way a dropped connection does (SQLSTATE 08006), either before it reaches the server or after
 * its transaction committed (the answer to the commit is lost). Everything else is passed on.
 */
final class FaultInjectingDataSource implements DataSource {

    /** Where the armed fault strikes. */
    enum When {
        /** The statement never reaches the server. */
        BEFORE_STATEMENT,
        /** The statement runs and its transaction commits, but the client hears an error. */
        AFTER_COMMIT
    }

    private final DataSource real;
    private volatile String fragment;
    private volatile When when;
    private final AtomicInteger countdown = new AtomicInteger();
    private final AtomicInteger injected = new AtomicInteger();

    FaultInjectingDataSource(DataSource real) {
        this.real = real;
    }

    /** The {@code nth} statement from now that contains {@code sqlFragment} fails, once. */
    void arm(String sqlFragment, When where, int nth) {
        this.when = where;
        this.countdown.set(nth);
        this.fragment = sqlFragment;
    }

    /** How many faults struck so far. */
    int injected() {
        return injected.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(real.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(real.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        boolean[] failCommit = {false};
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("prepareStatement") && strikes((String) args[0])) {
                        if (when == When.BEFORE_STATEMENT) {
                            injected.incrementAndGet();
                            throw new SQLTransientConnectionException("injected fault before: " + args[0], "08006");
                        }
                        failCommit[0] = true;
                    }
                    Object result;
                    try {
                        result = method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (name.equals("commit") && failCommit[0]) {
                        failCommit[0] = false;
                        injected.incrementAndGet();
                        throw new SQLTransientConnectionException("injected fault: the commit's answer was lost", "08006");
                    }
                    if (name.equals("rollback") || name.equals("close")) {
                        failCommit[0] = false;
                    }
                    return result;
                });
    }

    private boolean strikes(String sql) {
        String armed = fragment;
        return armed != null && sql.contains(armed) && countdown.decrementAndGet() == 0;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return real.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
