/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;

import java.util.Date;
import java.util.function.Supplier;

/**
 * {@code pgque.value.format=envelope}: the whole event as a {@link Struct} with one declared
 * schema, so that schema-based converters (Avro, Protobuf, JSON Schema, JsonConverter with
 * {@code schemas.enable=true}) can take it. The payload stays text: its shape is the producer's
 * business, and a registry would see a new schema for every new shape otherwise.
 *
 * <p>The schema is a contract with every consumer and registry downstream: fields may only be
 * added (optional, at the end, with a new {@link #VERSION}); none is ever renamed, retyped or
 * removed.
 */
public final class EventEnvelope implements RecordValues {

    public static final String SCHEMA_NAME = "io.pgque.Event";
    public static final int VERSION = 1;

    public static final String ID = "id";
    public static final String TYPE = "type";
    public static final String PAYLOAD = "payload";
    public static final String TIME = "time";
    public static final String EXTRA1 = "extra1";
    public static final String EXTRA2 = "extra2";
    public static final String EXTRA3 = "extra3";
    public static final String EXTRA4 = "extra4";
    public static final String RETRY_COUNT = "retry_count";

    public static final Schema SCHEMA = SchemaBuilder.struct()
            .name(SCHEMA_NAME)
            .version(VERSION)
            .doc("A PgQue event")
            .field(ID, doc(SchemaBuilder.int64(), "event id (ev_id), unique within the queue"))
            .field(TYPE, doc(SchemaBuilder.string().optional(), "event type (ev_type)"))
            .field(PAYLOAD, doc(SchemaBuilder.string().optional(), "event body (ev_data), verbatim text"))
            .field(TIME, doc(Timestamp.builder().optional(), "when the producing transaction started (ev_time)"))
            .field(EXTRA1, doc(SchemaBuilder.string().optional(), "ev_extra1: the partition key"))
            .field(EXTRA2, doc(SchemaBuilder.string().optional(), "ev_extra2: the idempotency key of an idempotent send"))
            .field(EXTRA3, doc(SchemaBuilder.string().optional(), "ev_extra3: free-form metadata"))
            .field(EXTRA4, doc(SchemaBuilder.string().optional(), "ev_extra4: free-form metadata"))
            .field(RETRY_COUNT, doc(SchemaBuilder.int32(), "0 on first delivery, then redeliveries after a nack"))
            .build();

    @Override
    public SchemaAndValue valueOf(Message message, Supplier<String> where) {
        Struct value = new Struct(SCHEMA)
                .put(ID, message.msgId())
                .put(TYPE, message.type())
                .put(PAYLOAD, message.payload())
                .put(TIME, message.createdAt() == null ? null : Date.from(message.createdAt()))
                .put(EXTRA1, message.extra1())
                .put(EXTRA2, message.extra2())
                .put(EXTRA3, message.extra3())
                .put(EXTRA4, message.extra4())
                .put(RETRY_COUNT, message.retryCount());
        return new SchemaAndValue(SCHEMA, value);
    }

    private static SchemaBuilder doc(SchemaBuilder field, String doc) {
        return field.doc(doc);
    }
}
