/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The keys paused in the batch a worker is processing ({@link Slot#pause}): the engine has set
 * their later events of the batch aside, and a batch already read (a page, a cursor) still holds
 * them, so the worker skips them. Follows one slot's batches: a message of another batch starts
 * afresh. Not thread-safe; one per slot a worker reads.
 *
 * <pre>{@code
 * PausedKeys paused = new PausedKeys();
 * for (Message m : batch.messages()) {
 *     if (paused.heldBack(m)) continue;
 *     try { handle(m); } catch (Exception e) { paused.pause(slot, m, Duration.ofMinutes(1), e.toString()); }
 * }
 * slot.ack(batch.batchId());
 * }</pre>
 */
public final class PausedKeys {

    private final Set<String> keys = new HashSet<>();
    private long batchId = Long.MIN_VALUE;

    /** Whether {@code message}'s key was paused earlier in its batch: then skip it, the engine set it aside. */
    public boolean heldBack(Message message) {
        follow(message);
        return message.partitionKey() != null && keys.contains(message.partitionKey());
    }

    /**
     * {@link Slot#pause} of {@code message}; when its key is blocked, the key's later messages of the
     * batch are {@linkplain #heldBack held back} here.
     *
     * @return what {@link Slot#pause} returns
     */
    public boolean pause(Slot slot, Message message, Duration retryAfter, String reason) {
        Objects.requireNonNull(slot, "slot");
        follow(message);
        boolean blocked = slot.pause(message, retryAfter, reason);
        if (blocked) {
            paused(message);
        }
        return blocked;
    }

    /**
     * Notes that {@code message} was paused and its key blocked by a call made elsewhere (the
     * engine's {@code pause_partitioned}): the key's later messages of the batch are held back here.
     */
    public void paused(Message message) {
        follow(message);
        if (message.partitionKey() != null) {
            keys.add(message.partitionKey());
        }
    }

    /** The keys paused in the current batch. */
    public Set<String> keys() {
        return Set.copyOf(keys);
    }

    private void follow(Message message) {
        if (message.batchId() != batchId) {
            keys.clear();
            batchId = message.batchId();
        }
    }
}
