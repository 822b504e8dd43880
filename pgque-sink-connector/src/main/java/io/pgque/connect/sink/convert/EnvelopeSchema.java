/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The {@code schema} of a JsonConverter envelope, read once per distinct schema text and kept as
 * what {@link EnvelopePayload} needs to write each payload: the kind of every value, its fields,
 * and its default as the JSON text the Struct path would write for it. It follows JsonConverter's
 * reading of a schema (type names, {@code optional} false unless given as true, logical types by
 * {@code name}, a decimal's {@code scale} parameter).
 */
final class EnvelopeSchema {

    /** What a value is written as; a logical type is a kind of its own. */
    enum Kind {
        BOOLEAN, INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, STRING, BYTES,
        DECIMAL, DATE, TIME, TIMESTAMP, ARRAY, MAP, STRUCT,
        /** No schema ({@code "schema": null}): JSON types map to Connect's schemaless values. */
        ANY
    }

    /** The root of an envelope whose schema is null. */
    static final EnvelopeSchema SCHEMALESS = new EnvelopeSchema(Kind.ANY, true, null, null, null, null, null, null);
    /** A JSON object without a schema: JsonConverter reads it as a map of strings to schemaless values. */
    static final EnvelopeSchema SCHEMALESS_OBJECT = new EnvelopeSchema(Kind.MAP, true, null, null,
            new EnvelopeSchema(Kind.STRING, false, Schema.STRING_SCHEMA, null, null, null, null, null), SCHEMALESS,
            null, null);

    private static final Map<String, Kind> TYPES = Map.of("boolean", Kind.BOOLEAN, "int8", Kind.INT8,
            "int16", Kind.INT16, "int32", Kind.INT32, "int64", Kind.INT64, "float", Kind.FLOAT32,
            "double", Kind.FLOAT64, "string", Kind.STRING, "bytes", Kind.BYTES);

    final Kind kind;
    final boolean optional;
    /** For scalar kinds: the Connect schema that {@link ConnectJson} writes the value with. */
    final Schema connect;
    final EnvelopeSchema items;
    final EnvelopeSchema keys;
    final EnvelopeSchema values;
    /** Field names, interned: JSON parsers intern member names too, so most lookups are one ==. */
    final String[] fieldNames;
    final EnvelopeSchema[] fields;
    private final Map<String, Integer> fieldIndex;
    /** The JSON the Struct path writes for a null or missing value; null when there is no default. */
    private String defaultJson;

    private EnvelopeSchema(Kind kind, boolean optional, Schema connect, EnvelopeSchema items, EnvelopeSchema keys,
                           EnvelopeSchema values, String[] fieldNames, EnvelopeSchema[] fields) {
        this.kind = kind;
        this.optional = optional;
        this.connect = connect;
        this.items = items;
        this.keys = keys;
        this.values = values;
        this.fieldNames = fieldNames;
        this.fields = fields;
        if (fieldNames == null) {
            this.fieldIndex = Map.of();
        } else {
            this.fieldIndex = new HashMap<>();
            for (int i = 0; i < fieldNames.length; i++) {
                fieldIndex.put(fieldNames[i], i);
            }
        }
    }

    /** The index of field {@code name}, or -1 when the schema has no such field; {@code expected} is tried first. */
    int fieldIndex(String name, int expected) {
        if (expected < fieldNames.length && (fieldNames[expected] == name || fieldNames[expected].equals(name))) {
            return expected;
        }
        Integer index = fieldIndex.get(name);
        return index == null ? -1 : index;
    }

    String defaultJson() {
        return defaultJson;
    }

    /** Map keys written as JSON object member names (string keys) rather than [key, value] pairs. */
    boolean stringKeys() {
        return keys.kind == Kind.STRING;
    }

    /**
     * Reads a schema from its JSON.
     *
     * @throws RecordRejectedException when it is not a schema JsonConverter would read
     */
    static EnvelopeSchema read(JsonNode json, EnvelopePayload writer) {
        if (json.isNull()) {
            return SCHEMALESS;
        }
        return read(json, writer, "schema");
    }

    private static EnvelopeSchema read(JsonNode json, EnvelopePayload writer, String path) {
        if (!json.isObject()) {
            throw invalid(path, "is not a JSON object");
        }
        JsonNode typeNode = json.get("type");
        if (typeNode == null || !typeNode.isTextual()) {
            throw invalid(path, "has no \"type\"");
        }
        String type = typeNode.textValue();
        JsonNode optionalNode = json.get("optional");
        boolean optional = optionalNode != null && optionalNode.isBoolean() && optionalNode.booleanValue();
        JsonNode nameNode = json.get("name");
        String name = nameNode != null && nameNode.isTextual() ? nameNode.textValue() : null;

        EnvelopeSchema schema;
        switch (type) {
            case "array" -> schema = new EnvelopeSchema(Kind.ARRAY, optional, null,
                    read(required(json, "items", path), writer, path + ".items"), null, null, null, null);
            case "map" -> schema = new EnvelopeSchema(Kind.MAP, optional, null, null,
                    read(required(json, "keys", path), writer, path + ".keys"),
                    read(required(json, "values", path), writer, path + ".values"), null, null);
            case "struct" -> schema = struct(json, optional, writer, path);
            default -> {
                Kind kind = TYPES.get(type);
                if (kind == null) {
                    throw invalid(path, "has the unknown type \"" + type + "\"");
                }
                schema = scalar(kind, optional, name, json, path);
            }
        }
        JsonNode defaultNode = json.get("default");
        if (defaultNode != null) {
            // The default is written like any value of its schema; a null default of a required
            // schema is refused, as JsonConverter refuses it.
            schema.defaultJson = writer.defaultText(defaultNode, schema, path);
        }
        return schema;
    }

    private static EnvelopeSchema struct(JsonNode json, boolean optional, EnvelopePayload writer, String path) {
        JsonNode fieldsNode = json.get("fields");
        if (fieldsNode == null || !fieldsNode.isArray()) {
            throw invalid(path, "is a struct whose \"fields\" is not an array");
        }
        String[] names = new String[fieldsNode.size()];
        EnvelopeSchema[] fields = new EnvelopeSchema[fieldsNode.size()];
        Iterator<JsonNode> each = fieldsNode.elements();
        for (int i = 0; each.hasNext(); i++) {
            JsonNode field = each.next();
            JsonNode fieldName = field.get("field");
            if (fieldName == null || !fieldName.isTextual()) {
                throw invalid(path + ".fields[" + i + "]", "has no \"field\" name");
            }
            names[i] = fieldName.textValue().intern();
            fields[i] = read(field, writer, path + ".fields[" + i + "]");
        }
        return new EnvelopeSchema(Kind.STRUCT, optional, null, null, null, null, names, fields);
    }

    // Logical types go by name, as in JsonConverter and ConnectJson.
    private static EnvelopeSchema scalar(Kind kind, boolean optional, String name, JsonNode json, String path) {
        if (Decimal.LOGICAL_NAME.equals(name)) {
            JsonNode scale = json.path("parameters").path(Decimal.SCALE_FIELD);
            try {
                return new EnvelopeSchema(Kind.DECIMAL, optional, Decimal.schema(Integer.parseInt(scale.asText())),
                        null, null, null, null, null);
            } catch (NumberFormatException e) {
                throw invalid(path, "is a Decimal without an integer \"scale\" parameter");
            }
        }
        if (Date.LOGICAL_NAME.equals(name)) {
            return new EnvelopeSchema(Kind.DATE, optional, Date.SCHEMA, null, null, null, null, null);
        }
        if (Time.LOGICAL_NAME.equals(name)) {
            return new EnvelopeSchema(Kind.TIME, optional, Time.SCHEMA, null, null, null, null, null);
        }
        if (Timestamp.LOGICAL_NAME.equals(name)) {
            return new EnvelopeSchema(Kind.TIMESTAMP, optional, Timestamp.SCHEMA, null, null, null, null, null);
        }
        Schema connect = switch (kind) {
            case BOOLEAN -> Schema.BOOLEAN_SCHEMA;
            case INT8 -> Schema.INT8_SCHEMA;
            case INT16 -> Schema.INT16_SCHEMA;
            case INT32 -> Schema.INT32_SCHEMA;
            case INT64 -> Schema.INT64_SCHEMA;
            case FLOAT32 -> Schema.FLOAT32_SCHEMA;
            case FLOAT64 -> Schema.FLOAT64_SCHEMA;
            case STRING -> Schema.STRING_SCHEMA;
            default -> Schema.BYTES_SCHEMA;
        };
        return new EnvelopeSchema(kind, optional, connect, null, null, null, null, null);
    }

    private static JsonNode required(JsonNode json, String member, String path) {
        JsonNode node = json.get(member);
        if (node == null || node.isNull()) {
            throw invalid(path, "has no \"" + member + "\" schema");
        }
        return node;
    }

    private static RecordRejectedException invalid(String path, String problem) {
        return new RecordRejectedException("the envelope's " + path + " " + problem);
    }
}
