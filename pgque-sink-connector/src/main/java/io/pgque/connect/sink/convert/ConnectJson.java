/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

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
 * Connect data (with a schema, or schemaless Java values) as a Jackson tree.
 *
 * <p>Logical types: Decimal keeps its exact digits as a JSON number; Date, Time and Timestamp
 * become ISO-8601 strings in UTC; bytes become base64 strings. Map keys become object member
 * names through {@link KeyText}. In canonical mode, object members are sorted by name so that
 * equal data always gives equal text (used for partition keys).
 */
final class ConnectJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final boolean canonical;

    private ConnectJson(boolean canonical) {
        this.canonical = canonical;
    }

    /** Members in schema (or map iteration) order, as the producer wrote them. */
    static JsonNode tree(Schema schema, Object value) {
        return new ConnectJson(false).toNode(schema, value);
    }

    /** Members sorted by name at every level. */
    static JsonNode canonicalTree(Schema schema, Object value) {
        return new ConnectJson(true).toNode(schema, value);
    }

    private JsonNode toNode(Schema schema, Object value) {
        if (value == null) {
            return NODES.nullNode();
        }
        if (value instanceof Struct) {
            return struct((Struct) value);
        }
        return schema == null ? schemaless(value) : withSchema(schema, value);
    }

    private JsonNode withSchema(Schema schema, Object value) {
        String logical = schema.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            return DecimalNode.valueOf(expect(value, BigDecimal.class, schema));
        }
        if (org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)) {
            return NODES.textNode(Temporal.date(expect(value, Date.class, schema)));
        }
        if (Time.LOGICAL_NAME.equals(logical)) {
            return NODES.textNode(Temporal.time(expect(value, Date.class, schema)));
        }
        if (Timestamp.LOGICAL_NAME.equals(logical)) {
            return NODES.textNode(Temporal.timestamp(expect(value, Date.class, schema)));
        }
        switch (schema.type()) {
            case INT8:
                return NODES.numberNode(expect(value, Byte.class, schema));
            case INT16:
                return NODES.numberNode(expect(value, Short.class, schema));
            case INT32:
                return NODES.numberNode(expect(value, Integer.class, schema));
            case INT64:
                return NODES.numberNode(expect(value, Long.class, schema));
            case FLOAT32:
                return NODES.numberNode(expect(value, Float.class, schema));
            case FLOAT64:
                return NODES.numberNode(expect(value, Double.class, schema));
            case BOOLEAN:
                return NODES.booleanNode(expect(value, Boolean.class, schema));
            case STRING:
                return NODES.textNode(expect(value, String.class, schema));
            case BYTES:
                if (!Bytes.isBytes(value)) {
                    throw mismatch(value, schema);
                }
                return NODES.textNode(Bytes.base64(value));
            case ARRAY:
                return array(schema.valueSchema(), expect(value, Collection.class, schema));
            case MAP:
                return map(schema.keySchema(), schema.valueSchema(), expect(value, Map.class, schema));
            case STRUCT:
                throw mismatch(value, schema); // a Struct value was handled above
            default:
                throw new RecordRejectedException("unsupported schema type " + schema.type());
        }
    }

    private JsonNode schemaless(Object value) {
        if (value instanceof String) {
            return NODES.textNode((String) value);
        }
        if (value instanceof Boolean) {
            return NODES.booleanNode((Boolean) value);
        }
        if (value instanceof Byte || value instanceof Short || value instanceof Integer) {
            return NODES.numberNode(((Number) value).intValue());
        }
        if (value instanceof Long) {
            return NODES.numberNode((Long) value);
        }
        if (value instanceof Float) {
            return NODES.numberNode((Float) value);
        }
        if (value instanceof Double) {
            return NODES.numberNode((Double) value);
        }
        if (value instanceof BigDecimal) {
            return DecimalNode.valueOf((BigDecimal) value);
        }
        if (value instanceof BigInteger) {
            return NODES.numberNode((BigInteger) value);
        }
        if (Bytes.isBytes(value)) {
            return NODES.textNode(Bytes.base64(value));
        }
        if (value instanceof Date) {
            return NODES.textNode(Temporal.timestamp((Date) value));
        }
        if (value instanceof Map) {
            return map(null, null, (Map<?, ?>) value);
        }
        if (value instanceof Collection) {
            return array(null, (Collection<?>) value);
        }
        throw new RecordRejectedException("unsupported value type " + value.getClass().getName());
    }

    private JsonNode struct(Struct struct) {
        List<Field> fields = struct.schema().fields();
        if (canonical) {
            fields = new ArrayList<>(fields);
            fields.sort(Comparator.comparing(Field::name));
        }
        ObjectNode object = NODES.objectNode();
        for (Field field : fields) {
            object.set(field.name(), toNode(field.schema(), struct.get(field)));
        }
        return object;
    }

    private JsonNode array(Schema elementSchema, Collection<?> elements) {
        ArrayNode array = NODES.arrayNode(elements.size());
        for (Object element : elements) {
            array.add(toNode(elementSchema, element));
        }
        return array;
    }

    private JsonNode map(Schema keySchema, Schema valueSchema, Map<?, ?> entries) {
        Map<String, JsonNode> members = canonical ? new TreeMap<>() : new LinkedHashMap<>();
        for (Map.Entry<?, ?> entry : entries.entrySet()) {
            if (entry.getKey() == null) {
                throw new RecordRejectedException("a map has a null key, which JSON cannot represent");
            }
            members.put(KeyText.of(keySchema, entry.getKey()), toNode(valueSchema, entry.getValue()));
        }
        ObjectNode object = NODES.objectNode();
        members.forEach(object::set);
        return object;
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
