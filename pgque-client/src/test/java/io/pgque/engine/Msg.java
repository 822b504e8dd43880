/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;

/** One row of {@code pgque.message} as returned by {@code receive} / {@code read_batch}. */
record Msg(long msgId, long batchId, String type, String payload, Integer retryCount,
           OffsetDateTime createdAt, String extra1, String extra2, String extra3, String extra4) {

    static Msg from(ResultSet rs) throws SQLException {
        return new Msg(
                rs.getLong("msg_id"),
                rs.getLong("batch_id"),
                rs.getString("type"),
                rs.getString("payload"),
                (Integer) rs.getObject("retry_count"),
                rs.getObject("created_at", OffsetDateTime.class),
                rs.getString("extra1"),
                rs.getString("extra2"),
                rs.getString("extra3"),
                rs.getString("extra4"));
    }
}
