/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/** Reading the engine's result columns into Java values. */
final class Rows {

    /** Select list for a {@code pgque.message} set aliased {@code m}. */
    static final String MESSAGE_COLUMNS = "m.msg_id, m.batch_id, m.type, m.payload, m.retry_count, "
            + "m.created_at, m.extra1, m.extra2, m.extra3, m.extra4";

    private Rows() {
    }

    /** SQL turning an interval expression into whole microseconds (read back with {@link #duration}). */
    static String micros(String intervalExpression) {
        return "(extract(epoch from " + intervalExpression + ") * 1000000)::bigint";
    }

    /**
     * The payload is taken as the bytes the driver received (text comes as UTF-8 to a pgjdbc
     * client), not decoded: {@link Message} decodes it only if asked for the string.
     */
    static Message message(ResultSet rs) throws SQLException {
        return Message.ofUtf8(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getBytes(4),
                rs.getInt(5), instant(rs, 6), rs.getString(7), rs.getString(8), rs.getString(9),
                rs.getString(10));
    }

    /** A column produced by {@link #micros}, or null. */
    static Duration duration(ResultSet rs, String column) throws SQLException {
        long micros = rs.getLong(column);
        return rs.wasNull() ? null : Duration.of(micros, ChronoUnit.MICROS);
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        return instant(rs, rs.findColumn(column));
    }

    static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    static Double nullableDouble(ResultSet rs, String column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }
}
