/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.connect.source.config.ValueFormat;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.errors.DataException;

import java.util.function.Supplier;

/** Turns an event payload into the record value, per {@code pgque.value.format}. */
public abstract class PayloadConverter {

    /** The converter for {@code format}. */
    public static PayloadConverter of(ValueFormat format) {
        switch (format) {
            case STRING:
                return new Text();
            case JSON:
                return new Json();
            default:
                throw new IllegalArgumentException("no converter for " + format);
        }
    }

    /**
     * @param where names the event in an error message, e.g. "event 17 of batch 3 on slot 1";
     *              built only when there is an error to report
     * @throws DataException when the payload cannot be converted
     */
    public abstract SchemaAndValue convert(String payload, Supplier<String> where);

    private static final class Text extends PayloadConverter {
        @Override
        public SchemaAndValue convert(String payload, Supplier<String> where) {
            return new SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, payload);
        }
    }

    /** Schemaless: Connect's JSON and other schemaless converters take Maps, Lists and scalars. */
    private static final class Json extends PayloadConverter {
        private final ObjectMapper mapper = new ObjectMapper();

        @Override
        public SchemaAndValue convert(String payload, Supplier<String> where) {
            if (payload == null) {
                return SchemaAndValue.NULL;
            }
            try {
                return new SchemaAndValue(null, mapper.readValue(payload, Object.class));
            } catch (JsonProcessingException e) {
                // The message of a parse error quotes the payload; say where it is instead.
                throw new DataException("pgque.value.format=json, but the payload of " + where.get()
                        + " is not JSON (line " + e.getLocation().getLineNr() + ", column "
                        + e.getLocation().getColumnNr() + "); use pgque.value.format=string for such queues");
            }
        }
    }
}
