/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Runs one prepared statement with bound parameters. Values are always bound, never spliced into
 * the SQL text; a null binds as a NULL of type text, the only type for which the client passes
 * NULLs.
 */
final class Sql {

    @FunctionalInterface
    interface RowMapper<T> {
        T map(ResultSet rs) throws SQLException;
    }

    private Sql() {
    }

    static <T> List<T> list(Connection c, String sql, RowMapper<T> mapper, Object... params)
            throws SQLException {
        return stream(c, sql, 0, mapper, params);
    }

    /**
     * Like {@link #list}, but the rows come {@code fetchSize} per round trip instead of all at
     * once (when the connection is in a transaction, which is how the driver can hold a cursor).
     */
    static <T> List<T> stream(Connection c, String sql, int fetchSize, RowMapper<T> mapper, Object... params)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setFetchSize(fetchSize);
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                List<T> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(mapper.map(rs));
                }
                return rows;
            }
        }
    }

    /** Maps the single row a function call returns (a function returning a scalar gives one row). */
    static <T> T one(Connection c, String sql, RowMapper<T> mapper, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no row returned by: " + sql);
                }
                return mapper.map(rs);
            }
        }
    }

    /** The scalar result of a function call returning bigint or integer; null when SQL NULL. */
    static Long nullableLong(Connection c, String sql, Object... params) throws SQLException {
        return one(c, sql, rs -> {
            long v = rs.getLong(1);
            return rs.wasNull() ? null : v;
        }, params);
    }

    /** The scalar result of a function call returning a non-null integer count. */
    static int count(Connection c, String sql, Object... params) throws SQLException {
        Long n = nullableLong(c, sql, params);
        if (n == null) {
            throw new SQLException("unexpected NULL from: " + sql);
        }
        return n.intValue();
    }

    /**
     * A SQL array of {@code type} holding one field of each item, in order (a null field is a
     * NULL element).
     */
    static <E, V> Array array(Connection c, String type, List<E> items, Function<E, V> field,
                              IntFunction<V[]> newArray) throws SQLException {
        V[] values = newArray.apply(items.size());
        for (int i = 0; i < values.length; i++) {
            values[i] = field.apply(items.get(i));
        }
        return c.createArrayOf(type, values);
    }

    private static void bind(PreparedStatement ps, Object[] params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            if (params[i] == null) {
                ps.setNull(i + 1, Types.VARCHAR);
            } else {
                ps.setObject(i + 1, params[i]);
            }
        }
    }
}
