/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import io.pgque.connect.common.template.Placeholder;
import io.pgque.connect.common.template.PlaceholderValues;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The placeholder values of one record. The key text and the headers' JSON are computed at most
 * once, however many templates (and the partition key) use them.
 */
final class RecordPlaceholders implements PlaceholderValues {

    private final SinkRecord record;
    private boolean keyDone;
    private String keyText;
    private String headersJson;

    RecordPlaceholders(SinkRecord record) {
        this.record = record;
    }

    @Override
    public String valueOf(Placeholder placeholder) {
        switch (placeholder.kind()) {
            case TOPIC:
                return record.topic();
            case PARTITION:
                return record.kafkaPartition() == null ? null : record.kafkaPartition().toString();
            case OFFSET:
                return Long.toString(record.kafkaOffset());
            case KEY:
                return keyText();
            case HEADER:
                return headerText(placeholder.headerName());
            case HEADERS:
                return headersJson();
            default:
                throw new IllegalStateException(placeholder + " is not a sink placeholder");
        }
    }

    /** The record key as text, or null when the record has no key. */
    String keyText() {
        if (!keyDone) {
            try {
                keyText = KeyText.of(record.keySchema(), record.key());
            } catch (RecordRejectedException e) {
                throw new RecordRejectedException("record key: " + e.getMessage());
            }
            keyDone = true;
        }
        return keyText;
    }

    /** The last header named {@code name} as text, or null when there is none or its value is null. */
    String headerText(String name) {
        Header header = record.headers().lastWithName(name);
        if (header == null) {
            return null;
        }
        try {
            return KeyText.of(header.schema(), header.value());
        } catch (RecordRejectedException e) {
            throw new RecordRejectedException("header '" + name + "': " + e.getMessage());
        }
    }

    // All headers as one object; a name that occurs more than once keeps its last value, as
    // ${header:NAME} does.
    private String headersJson() {
        if (headersJson == null) {
            Map<String, Header> last = new LinkedHashMap<>();
            for (Header header : record.headers()) {
                last.put(header.key(), header);
            }
            headersJson = JsonText.write(out -> {
                out.writeStartObject();
                for (Header header : last.values()) {
                    out.writeFieldName(header.key());
                    try {
                        ConnectJson.write(out, header.schema(), header.value());
                    } catch (RecordRejectedException e) {
                        throw new RecordRejectedException("header '" + header.key() + "': " + e.getMessage());
                    }
                }
                out.writeEndObject();
            });
        }
        return headersJson;
    }
}
