/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.core.JsonGenerator;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Connect data (with a schema, or schemaless Java values) written as JSON text, straight into a
 * generator: no intermediate tree, since the sink writes every value of every record this way.
 *
 * <p>Logical types: Decimal keeps its exact digits as a JSON number; Date, Time and Timestamp
 * become ISO-8601 strings in UTC; bytes become base64 strings. Map keys become object member
 * names through {@link KeyText}. In canonical mode, object members are sorted by name so that
 * equal data always gives equal text (used for partition keys).
 */
final class ConnectJson {

    private final JsonGenerator out;
    private final boolean canonical;

    private ConnectJson(JsonGenerator out, boolean canonical) {
        this.out = out;
        this.canonical = canonical;
    }

    /** Members in schema (or map iteration) order, as the producer wrote them. */
    static String text(Schema schema, Object value) {
        return JsonText.write(out -> new ConnectJson(out, false).value(schema, value));
    }

    /** The same, written with {@code output}'s generator. */
    static String text(JsonText.Output output, Schema schema, Object value) {
        return output.write(out -> new ConnectJson(out, false).value(schema, value));
    }

    /** Members sorted by name at every level. */
    static String canonicalText(Schema schema, Object value) {
        return JsonText.write(out -> new ConnectJson(out, true).value(schema, value));
    }

    /** {@code value} as the next value of {@code out}, members in schema order. */
    static void write(JsonGenerator out, Schema schema, Object value) throws IOException {
        new ConnectJson(out, false).value(schema, value);
    }

    private void value(Schema schema, Object value) throws IOException {
        if (value == null) {
            out.writeNull();
        } else if (value instanceof Struct) {
            struct((Struct) value);
        } else if (schema == null) {
            schemaless(value);
        } else {
            withSchema(schema, value);
        }
    }

    private void withSchema(Schema schema, Object value) throws IOException {
        String logical = schema.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            out.writeNumber(expect(value, BigDecimal.class, schema));
            return;
        }
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
            out.writeString(Temporal.date(expect(value, Date.class, schema)));
            return;
        }
        if (Time.LOGICAL_NAME.equals(logical)) {
            out.writeString(Temporal.time(expect(value, Date.class, schema)));
            return;
        }
        if (Timestamp.LOGICAL_NAME.equals(logical)) {
            out.writeString(Temporal.timestamp(expect(value, Date.class, schema)));
            return;
        }
        switch (schema.type()) {
            case INT8 -> out.writeNumber(expect(value, Byte.class, schema));
            case INT16 -> out.writeNumber(expect(value, Short.class, schema));
            case INT32 -> out.writeNumber(expect(value, Integer.class, schema));
            case INT64 -> out.writeNumber(expect(value, Long.class, schema));
            case FLOAT32 -> out.writeNumber(expect(value, Float.class, schema));
            case FLOAT64 -> out.writeNumber(expect(value, Double.class, schema));
            case BOOLEAN -> out.writeBoolean(expect(value, Boolean.class, schema));
            case STRING -> out.writeString(expect(value, String.class, schema));
            case BYTES -> {
                if (!Bytes.isBytes(value)) {
                    throw mismatch(value, schema);
                }
                out.writeString(Bytes.base64(value));
            }
            case ARRAY -> array(schema.valueSchema(), expect(value, Collection.class, schema));
            case MAP -> map(schema.keySchema(), schema.valueSchema(), expect(value, Map.class, schema));
            case STRUCT -> throw mismatch(value, schema); // a Struct value was handled above
            default -> throw new RecordRejectedException("unsupported schema type " + schema.type());
        }
    }

    private void schemaless(Object value) throws IOException {
        if (value instanceof String) {
            out.writeString((String) value);
        } else if (value instanceof Boolean) {
            out.writeBoolean((Boolean) value);
        } else if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
            out.writeNumber(((Number) value).intValue());
        } else if (value instanceof Long) {
            out.writeNumber((Long) value);
        } else if (value instanceof Float) {
            out.writeNumber((Float) value);
        } else if (value instanceof Double) {
            out.writeNumber((Double) value);
        } else if (value instanceof BigDecimal) {
            out.writeNumber((BigDecimal) value);
        } else if (value instanceof BigInteger) {
            out.writeNumber((BigInteger) value);
        } else if (Bytes.isBytes(value)) {
            out.writeString(Bytes.base64(value));
        } else if (value instanceof Date) {
            out.writeString(Temporal.timestamp((Date) value));
        } else if (value instanceof Map) {
            map(null, null, (Map<?, ?>) value);
        } else if (value instanceof Collection) {
            array(null, (Collection<?>) value);
        } else {
            throw new RecordRejectedException("unsupported value type " + value.getClass().getName());
        }
    }

    private void struct(Struct struct) throws IOException {
        List<Field> fields = struct.schema().fields();
        if (canonical) {
            fields = new ArrayList<>(fields);
            fields.sort(Comparator.comparing(Field::name));
        }
        out.writeStartObject();
        for (Field field : fields) {
            out.writeFieldName(field.name());
            value(field.schema(), struct.get(field));
        }
        out.writeEndObject();
    }

    private void array(Schema elementSchema, Collection<?> elements) throws IOException {
        out.writeStartArray();
        for (Object element : elements) {
            value(elementSchema, element);
        }
        out.writeEndArray();
    }

    // A name that two keys share (say 1 and "1") keeps its first place and the last value, as a
    // JSON object can hold one member per name.
    private void map(Schema keySchema, Schema valueSchema, Map<?, ?> entries) throws IOException {
        Map<String, Object> members = canonical ? new TreeMap<>() : new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            if (entry.getKey() == null) {
                throw new RecordRejectedException("a map has a null key, which JSON cannot represent");
            }
            members.put(KeyText.of(keySchema, entry.getKey()), entry.getValue());
        }
        out.writeStartObject();
        for (Map.Entry<String, Object> member : members.entrySet()) {
            out.writeFieldName(member.getKey());
            value(valueSchema, member.getValue());
        }
        out.writeEndObject();
    }

    private static <T> T expect(Object value, Class<T> type, Schema schema) {
        if (!type.isInstance(value)) {
            throw mismatch(value, schema);
        }
        return type.cast(value);
    }

    private static RecordRejectedException mismatch(Object value, Schema schema) {
        String what = schema.name() != null ? schema.name() : schema.type().toString();
        return new RecordRejectedException("a " + value.getClass().getSimpleName()
                + " value does not match its schema type " + what);
    }
}
