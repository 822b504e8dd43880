/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import io.pgque.connect.source.config.ValueFormat;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;

import java.util.function.Supplier;

/** Builds a record's value (with its schema) from a received event, per {@code pgque.value.format}. */
@FunctionalInterface
public interface RecordValues {

    /**
     * @param where names the event in an error message; built only when there is an error
     * @throws DataException when the event cannot become a value
     */
    SchemaAndValue valueOf(Message message, Supplier<String> where);

    /** The values {@code format} asks for. */
    static RecordValues of(ValueFormat format) {
        switch (format) {
            case ENVELOPE:
                return new EventEnvelope();
            case BYTES:
                return (message, where) -> new SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, message.payloadBytes());
            default:
                return ofPayload(PayloadConverter.of(format));
        }
    }

    /** The value is the payload alone, converted by {@code payloads}. */
    static RecordValues ofPayload(PayloadConverter payloads) {
        return (message, where) -> payloads.convert(message.payload(), where);
    }
}
