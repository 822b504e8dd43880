/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.probe;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

/**
 * Tells "no server answered" from "a server answered and refused". validate() reports the second
 * (a wrong password, an unknown database, missing rights; see {@link ConnectionFailure}, which
 * also tells an unknown host apart before asking this) but only warns about the first: a
 * connector deployed while PostgreSQL is down must be accepted, since its tasks wait for the
 * database and retry; failing the deployment would turn a passing outage into a failed rollout.
 */
public final class Unreachable {

    private Unreachable() {
    }

    /** True for a connection refused, timed out or broken (SQLSTATE class 08, or a pool that gave no connection in time). */
    public static boolean is(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08")) {
                return true;
            }
            if (t instanceof java.net.ConnectException || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.NoRouteToHostException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
