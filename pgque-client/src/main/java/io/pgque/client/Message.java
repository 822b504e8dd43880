/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * A received event, as the engine's {@code pgque.message} type describes it. A value: two
 * messages are equal when every field is.
 *
 * <p>The payload is kept as the driver received it (UTF-8 bytes, which is how PostgreSQL sends
 * text to this client) and decoded when {@link #payload()} is first asked for, so a reader that
 * forwards bytes ({@link #payloadBytes()}) never builds the string: for a 1 KB payload that is a
 * decode and a copy an event.
 */
public final class Message {

    private final long msgId;
    private final long batchId;
    private final String type;
    private final int retryCount;
    private final Instant createdAt;
    private final String extra1;
    private final String extra2;
    private final String extra3;
    private final String extra4;
    /** What the message was made from; the other form is derived on demand. */
    private final byte[] payloadBytes;
    private String payload;

    /**
     * @param msgId      the event id; unique within a batch, kept by redeliveries
     * @param batchId    the batch it was delivered in
     * @param type       event type
     * @param payload    event body, verbatim
     * @param retryCount 0 on first delivery, then how often it was redelivered after a nack
     * @param createdAt  when the producing transaction started
     * @param extra1     partition key, by convention
     * @param extra2     idempotency key, when sent idempotently
     * @param extra3     free-form metadata
     * @param extra4     free-form metadata
     */
    public Message(long msgId, long batchId, String type, String payload, int retryCount,
                   Instant createdAt, String extra1, String extra2, String extra3, String extra4) {
        this(msgId, batchId, type, payload, null, retryCount, createdAt, extra1, extra2, extra3, extra4);
    }

    private Message(long msgId, long batchId, String type, String payload, byte[] payloadBytes, int retryCount,
                    Instant createdAt, String extra1, String extra2, String extra3, String extra4) {
        this.msgId = msgId;
        this.batchId = batchId;
        this.type = type;
        this.payload = payload;
        this.payloadBytes = payloadBytes;
        this.retryCount = retryCount;
        this.createdAt = createdAt;
        this.extra1 = extra1;
        this.extra2 = extra2;
        this.extra3 = extra3;
        this.extra4 = extra4;
    }

    /** A message whose payload is {@code payloadUtf8}, decoded only if {@link #payload()} is called. */
    static Message ofUtf8(long msgId, long batchId, String type, byte[] payloadUtf8, int retryCount,
                          Instant createdAt, String extra1, String extra2, String extra3, String extra4) {
        return new Message(msgId, batchId, type, null, payloadUtf8, retryCount, createdAt, extra1, extra2, extra3,
                extra4);
    }

    /** The same event as a message of batch {@code otherBatchId}; the payload is shared, not copied. */
    public Message inBatch(long otherBatchId) {
        return new Message(msgId, otherBatchId, type, payload, payloadBytes, retryCount, createdAt, extra1, extra2,
                extra3, extra4);
    }

    public long msgId() {
        return msgId;
    }

    public long batchId() {
        return batchId;
    }

    public String type() {
        return type;
    }

    /** The event body, verbatim; null when the event has none. */
    public String payload() {
        // A race only decodes twice: both threads get equal strings.
        String text = payload;
        if (text == null && payloadBytes != null) {
            text = new String(payloadBytes, StandardCharsets.UTF_8);
            payload = text;
        }
        return text;
    }

    /**
     * The event body as UTF-8 bytes; null when the event has none. The array may be the one the
     * message holds: do not change it.
     */
    public byte[] payloadBytes() {
        if (payloadBytes != null) {
            return payloadBytes;
        }
        return payload == null ? null : payload.getBytes(StandardCharsets.UTF_8);
    }

    public int retryCount() {
        return retryCount;
    }

    public Instant createdAt() {
        return createdAt;
    }

    public String extra1() {
        return extra1;
    }

    public String extra2() {
        return extra2;
    }

    public String extra3() {
        return extra3;
    }

    public String extra4() {
        return extra4;
    }

    /** The partition key the event was sent with ({@code extra1}), or null. */
    public String partitionKey() {
        return extra1;
    }

    /** The idempotency key the event was sent with ({@code extra2}), or null. */
    public String idemKey() {
        return extra2;
    }

    /** True when this is a redelivery after a nack. */
    public boolean isRetry() {
        return retryCount > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Message)) {
            return false;
        }
        Message m = (Message) o;
        return msgId == m.msgId && batchId == m.batchId && retryCount == m.retryCount && Objects.equals(type, m.type)
                && Objects.equals(createdAt, m.createdAt) && Objects.equals(extra1, m.extra1)
                && Objects.equals(extra2, m.extra2) && Objects.equals(extra3, m.extra3)
                && Objects.equals(extra4, m.extra4) && Arrays.equals(payloadBytes(), m.payloadBytes());
    }

    @Override
    public int hashCode() {
        return Objects.hash(msgId, batchId, type, retryCount, createdAt, extra1, extra2, extra3, extra4,
                Arrays.hashCode(payloadBytes()));
    }

    @Override
    public String toString() {
        return "Message[msgId=" + msgId + ", batchId=" + batchId + ", type=" + type + ", payload=" + payload()
                + ", retryCount=" + retryCount + ", createdAt=" + createdAt + ", extra1=" + extra1 + ", extra2="
                + extra2 + ", extra3=" + extra3 + ", extra4=" + extra4 + "]";
    }
}
