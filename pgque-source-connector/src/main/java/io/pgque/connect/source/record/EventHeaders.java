/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;

/**
 * The record headers that say where an event came from. The epoch lets a downstream consumer
 * reject anything a fenced task wrote after it lost its slot.
 */
public final class EventHeaders {

    public static final String EVENT_ID = "pgque.event.id";
    public static final String EVENT_TYPE = "pgque.event.type";
    public static final String BATCH_ID = "pgque.batch.id";
    public static final String SLOT = "pgque.slot";
    public static final String EPOCH = "pgque.epoch";
    /** Cooperative mode, instead of slot and epoch: the worker that read the event. */
    public static final String SUBCONSUMER = "pgque.subconsumer";
    public static final String RETRY_COUNT = "pgque.retry.count";
    public static final String EXTRA2 = "pgque.extra2";
    public static final String EXTRA3 = "pgque.extra3";
    public static final String EXTRA4 = "pgque.extra4";

    private EventHeaders() {
    }

    /** Headers for {@code message}; the extra fields only when present, to keep records small. */
    public static Headers of(Message message, int slot, long epoch) {
        Headers headers = new ConnectHeaders();
        headers.addLong(EVENT_ID, message.msgId());
        headers.addString(EVENT_TYPE, message.type());
        headers.addLong(BATCH_ID, message.batchId());
        headers.addInt(SLOT, slot);
        headers.addLong(EPOCH, epoch);
        return withRest(headers, message);
    }

    /** Headers for {@code message} read by cooperative worker {@code subconsumer}. */
    public static Headers of(Message message, String subconsumer) {
        Headers headers = new ConnectHeaders();
        headers.addLong(EVENT_ID, message.msgId());
        headers.addString(EVENT_TYPE, message.type());
        headers.addLong(BATCH_ID, message.batchId());
        headers.addString(SUBCONSUMER, subconsumer);
        return withRest(headers, message);
    }

    private static Headers withRest(Headers headers, Message message) {
        headers.addInt(RETRY_COUNT, message.retryCount());
        addIfPresent(headers, EXTRA2, message.extra2());
        addIfPresent(headers, EXTRA3, message.extra3());
        addIfPresent(headers, EXTRA4, message.extra4());
        return headers;
    }

    private static void addIfPresent(Headers headers, String name, String value) {
        if (value != null) {
            headers.addString(name, value);
        }
    }
}
