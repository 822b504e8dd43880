/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.client.Message;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The record headers that say where an event came from, those of them the connector is set to
 * write ({@code pgque.headers}; all by default). The epoch lets a downstream consumer reject
 * anything a fenced task wrote after it lost its slot. Each header costs every record its
 * conversion in the worker and its bytes in Kafka, so a user may keep only those they read.
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

    /** Every header the connector can write, in the order a record carries them. */
    public static final List<String> NAMES = List.of(EVENT_ID, EVENT_TYPE, BATCH_ID, SLOT, EPOCH, SUBCONSUMER,
            RETRY_COUNT, EXTRA2, EXTRA3, EXTRA4);

    public static final EventHeaders ALL = new EventHeaders(Set.copyOf(NAMES));

    private final boolean eventId;
    private final boolean eventType;
    private final boolean batchId;
    private final boolean slot;
    private final boolean epoch;
    private final boolean subconsumer;
    private final boolean retryCount;
    private final boolean extra2;
    private final boolean extra3;
    private final boolean extra4;

    private EventHeaders(Set<String> names) {
        this.eventId = names.contains(EVENT_ID);
        this.eventType = names.contains(EVENT_TYPE);
        this.batchId = names.contains(BATCH_ID);
        this.slot = names.contains(SLOT);
        this.epoch = names.contains(EPOCH);
        this.subconsumer = names.contains(SUBCONSUMER);
        this.retryCount = names.contains(RETRY_COUNT);
        this.extra2 = names.contains(EXTRA2);
        this.extra3 = names.contains(EXTRA3);
        this.extra4 = names.contains(EXTRA4);
    }

    /**
     * The headers named (any of {@link #NAMES}, in any order; none is a valid choice).
     *
     * @throws IllegalArgumentException naming a header the connector does not write
     */
    public static EventHeaders of(Collection<String> names) {
        for (String name : names) {
            if (!NAMES.contains(name)) {
                throw new IllegalArgumentException("unknown header '" + name + "'; the connector writes "
                        + String.join(", ", NAMES));
            }
        }
        return new EventHeaders(Set.copyOf(names));
    }

    /** Headers for {@code message} read on {@code slot} under lease {@code epoch}; the extra fields only when present. */
    public Headers of(Message message, int slot, long epoch) {
        Headers headers = common(message);
        if (this.slot) {
            headers.addInt(SLOT, slot);
        }
        if (this.epoch) {
            headers.addLong(EPOCH, epoch);
        }
        return withRest(headers, message);
    }

    /** Headers for {@code message} read by cooperative worker {@code subconsumer}. */
    public Headers of(Message message, String subconsumer) {
        Headers headers = common(message);
        if (this.subconsumer) {
            headers.addString(SUBCONSUMER, subconsumer);
        }
        return withRest(headers, message);
    }

    private Headers common(Message message) {
        Headers headers = new ConnectHeaders();
        if (eventId) {
            headers.addLong(EVENT_ID, message.msgId());
        }
        if (eventType) {
            headers.addString(EVENT_TYPE, message.type());
        }
        if (batchId) {
            headers.addLong(BATCH_ID, message.batchId());
        }
        return headers;
    }

    private Headers withRest(Headers headers, Message message) {
        if (retryCount) {
            headers.addInt(RETRY_COUNT, message.retryCount());
        }
        addIfPresent(headers, extra2, EXTRA2, message.extra2());
        addIfPresent(headers, extra3, EXTRA3, message.extra3());
        addIfPresent(headers, extra4, EXTRA4, message.extra4());
        return headers;
    }

    private static void addIfPresent(Headers headers, boolean chosen, String name, String value) {
        if (chosen && value != null) {
            headers.addString(name, value);
        }
    }
}
