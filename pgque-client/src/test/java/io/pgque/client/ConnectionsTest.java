/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Who commits, rolls back and closes: checked against a connection that records the calls. */
class ConnectionsTest {

    /** Records transaction-control calls; starts in auto-commit mode like a fresh pool connection. */
    private static final class Recorder {
        final List<String> calls = new ArrayList<>();
        boolean autoCommit = true;

        Connection connection() {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "getAutoCommit":
                                return autoCommit;
                            case "setAutoCommit":
                                autoCommit = (Boolean) args[0];
                                calls.add("autoCommit=" + autoCommit);
                                return null;
                            case "commit":
                            case "rollback":
                            case "close":
                                calls.add(method.getName());
                                return null;
                            default:
                                throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }

        DataSource dataSource() {
            return new DataSource() {
                @Override
                public Connection getConnection() {
                    return connection();
                }

                @Override
                public Connection getConnection(String user, String password) {
                    return connection();
                }

                @Override
                public PrintWriter getLogWriter() {
                    return null;
                }

                @Override
                public void setLogWriter(PrintWriter out) {
                }

                @Override
                public void setLoginTimeout(int seconds) {
                }

                @Override
                public int getLoginTimeout() {
                    return 0;
                }

                @Override
                public Logger getParentLogger() {
                    return null;
                }

                @Override
                public <T> T unwrap(Class<T> iface) {
                    return null;
                }

                @Override
                public boolean isWrapperFor(Class<?> iface) {
                    return false;
                }
            };
        }
    }

    @Test
    void ownTransactionCommitsAndRestoresAutoCommit() {
        Recorder r = new Recorder();
        String result = Connections.ownTransactions(r.dataSource()).run("x", c -> "done");
        assertEquals("done", result);
        assertEquals(List.of("autoCommit=false", "commit", "autoCommit=true", "close"), r.calls);
    }

    @Test
    void ownTransactionRollsBackOnSqlErrorAndMapsIt() {
        Recorder r = new Recorder();
        PgQueException e = assertThrows(PgQueException.class, () -> Connections.ownTransactions(r.dataSource())
                .run("send", c -> {
                    throw new SQLException("queue not found: q", "PQ001");
                }));
        assertInstanceOf(QueueNotFoundException.class, e);
        assertEquals(List.of("autoCommit=false", "rollback", "autoCommit=true", "close"), r.calls);
    }

    @Test
    void ownTransactionRollsBackOnRuntimeErrorAndRethrowsIt() {
        Recorder r = new Recorder();
        IllegalStateException boom = new IllegalStateException("boom");
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> Connections.ownTransactions(r.dataSource()).run("x", c -> {
                    throw boom;
                }));
        assertSame(boom, thrown);
        assertEquals(List.of("autoCommit=false", "rollback", "autoCommit=true", "close"), r.calls);
    }

    @Test
    void callerTransactionIsLeftToTheCaller() {
        Recorder r = new Recorder();
        r.autoCommit = false;
        Connection c = r.connection();
        Connections.callerTransaction(c).run("x", conn -> {
            assertSame(c, conn);
            return null;
        });
        assertThrows(BatchNotFoundException.class, () -> Connections.callerTransaction(c).run("ack", conn -> {
            throw new SQLException("batch not found", "PQ003");
        }));
        assertEquals(List.of(), r.calls);
    }
}
