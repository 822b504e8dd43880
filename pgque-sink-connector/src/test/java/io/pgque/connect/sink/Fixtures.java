/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import io.pgque.connect.sink.config.PgQueSinkConfig;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

import java.util.HashMap;
import java.util.Map;

/** Real configurations and records for the tests; no mocks. */
public final class Fixtures {

    public static final String TOPIC = "orders";
    public static final int PARTITION = 3;
    public static final long OFFSET = 42L;

    private Fixtures() {
    }

    /** The smallest valid sink configuration plus {@code overrides} (key, value, key, value, ...). */
    public static Map<String, String> props(String... overrides) {
        Map<String, String> props = new HashMap<>();
        props.put("connection.url", "jdbc:postgresql://localhost:5432/app");
        props.put("connection.user", "writer");
        props.put("connection.password", "s3cret-pw");
        props.put("topics", TOPIC);
        props.put("pgque.queue", "events");
        for (int i = 0; i < overrides.length; i += 2) {
            if (overrides[i + 1] == null) {
                props.remove(overrides[i]);
            } else {
                props.put(overrides[i], overrides[i + 1]);
            }
        }
        return props;
    }

    public static PgQueSinkConfig config(String... overrides) {
        return new PgQueSinkConfig(props(overrides));
    }

    public static SinkRecord record(Schema keySchema, Object key, Schema valueSchema, Object value) {
        return record(keySchema, key, valueSchema, value, new ConnectHeaders());
    }

    public static SinkRecord record(Schema keySchema, Object key, Schema valueSchema, Object value,
                                    ConnectHeaders headers) {
        return new SinkRecord(TOPIC, PARTITION, keySchema, key, valueSchema, value, OFFSET,
                1_700_000_000_000L, TimestampType.CREATE_TIME, headers);
    }

    /** A schemaless record with a String key and value. */
    public static SinkRecord record(String key, Object value) {
        return record(null, key, null, value);
    }

    public static Map<String, String> copy(Map<String, String> props) {
        return new HashMap<>(props);
    }
}
