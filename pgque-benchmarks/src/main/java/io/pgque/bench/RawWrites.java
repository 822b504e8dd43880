/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * The two raw baselines the producing benchmarks are measured against, on one connection, one
 * transaction per batch: JDBC batched INSERTs into a plain table (the driver rewrites them into
 * multi-row INSERTs, {@code reWriteBatchedInserts=true}), and {@code pgque.send_events} calls
 * with the arrays built as the Java client builds them.
 */
final class RawWrites {

    private RawWrites() {
    }

    /** A plain table with what an event row needs: a generated id, type, payload, key, time. */
    static void createPlainTable(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("create table " + table + " (id bigserial primary key, type text, payload text, "
                    + "partition_key text, created timestamptz default now())");
        }
    }

    /** Inserts documents {@code 0 .. count-1} in transactions of {@code batch} rows. */
    static void insert(Connection c, String table, String type, int count, int batch,
                       IntFunction<String> payload, IntFunction<String> key) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("insert into " + table + " (type, payload, partition_key) values (?, ?, ?)")) {
            for (int from = 0; from < count; from += batch) {
                for (int i = from; i < Math.min(count, from + batch); i++) {
                    ps.setString(1, type);
                    ps.setString(2, payload.apply(i));
                    ps.setString(3, key.apply(i));
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    /**
     * Sends documents {@code 0 .. count-1} with {@code send_events} in calls (and transactions)
     * of {@code batch} events. The arrays are {@code String[]}, which the driver sends in binary,
     * as the Java client does (an {@code Object[]} would go as a text array literal, every quote
     * of every document escaped by the driver and unescaped by the server).
     */
    static void sendEvents(Connection c, String queue, String type, int count, int batch,
                           IntFunction<String> payload, IntFunction<String> key) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("select pgque.send_events(?, ?, ?, ?)")) {
            for (int from = 0; from < count; from += batch) {
                int n = Math.min(count, from + batch) - from;
                String[] types = new String[n];
                String[] payloads = new String[n];
                String[] keys = new String[n];
                Arrays.fill(types, type);
                for (int i = 0; i < n; i++) {
                    payloads[i] = payload.apply(from + i);
                    keys[i] = key.apply(from + i);
                }
                ps.setString(1, queue);
                ps.setArray(2, c.createArrayOf("text", types));
                ps.setArray(3, c.createArrayOf("text", payloads));
                ps.setArray(4, c.createArrayOf("text", keys));
                ps.executeQuery().close();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** As {@link #sendEvents}, through {@code send_idem_events} with a fresh key per event. */
    static void sendIdemEvents(Connection c, String queue, String type, int count, int batch,
                               IntFunction<String> payload, IntFunction<String> key) throws SQLException {
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement(
                "select count(*) from pgque.send_idem_events(?, ?, ?, ?, interval '1 hour', ?)")) {
            for (int from = 0; from < count; from += batch) {
                int n = Math.min(count, from + batch) - from;
                String[] types = new String[n];
                String[] payloads = new String[n];
                String[] idemKeys = new String[n];
                String[] keys = new String[n];
                Arrays.fill(types, type);
                for (int i = 0; i < n; i++) {
                    payloads[i] = payload.apply(from + i);
                    idemKeys[i] = queue + "-0-" + (from + i);
                    keys[i] = key.apply(from + i);
                }
                ps.setString(1, queue);
                ps.setArray(2, c.createArrayOf("text", types));
                ps.setArray(3, c.createArrayOf("text", payloads));
                ps.setArray(4, c.createArrayOf("text", idemKeys));
                ps.setArray(5, c.createArrayOf("text", keys));
                ps.executeQuery().close();
                c.commit();
            }
        } finally {
            c.setAutoCommit(true);
        }
    }
}
