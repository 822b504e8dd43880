/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * What happens to an event that cannot become a record (a payload that is not JSON under
 * {@code pgque.value.format=json}; with {@code pgque.failure.policy=pause} also an event type the
 * topic template makes no topic of). With {@code pgque.failure.policy=pause} and a partition key,
 * the event is paused in the engine: retried later, and its key's later events wait, set aside in
 * order, until it becomes a record or is dead-lettered; every other key flows. Otherwise, by
 * Connect's own error settings: {@code errors.tolerance=none} (the default) fails the task, naming
 * the event; {@code errors.tolerance=all} moves that one event to the engine's dead letters with
 * the reason, logs it if {@code errors.log.enable}, counts it, and the rest of the batch goes on
 * in order.
 *
 * <p>Connect's own error handling cannot do this for a source: the conversion happens in the
 * task, before Connect sees a record, and the event must leave the queue in PostgreSQL, not
 * in Kafka, or the slot would stop on it after every restart.
 */
public final class UnreadableEvents {

    public static final String TOLERANCE = "errors.tolerance";
    public static final String LOG_ENABLE = "errors.log.enable";
    public static final String LOG_INCLUDE_MESSAGES = "errors.log.include.messages";

    private static final Logger log = LoggerFactory.getLogger(UnreadableEvents.class);

    /** Where a failed event goes, through the reader that read it: the engine's dead letters, or a pause. */
    public interface DeadLetters {
        void deadLetter(long msgId, String reason);

        /**
         * Pauses {@code message} in the engine (see {@code Slot#pause}): true when its key is
         * blocked now, false when the event went to the dead letters at the queue's max_retries.
         */
        default boolean pause(Message message, Duration retryAfter, String reason) {
            throw new UnsupportedOperationException("this reader has no slots, so no key to pause");
        }
    }

    /** The pause failure policy's settings: how long a paused event waits, and what counts pauses. */
    public record Pausing(Duration retryAfter, Runnable counter) {
    }

    /** Fails on the first unreadable event, as with {@code errors.tolerance=none}. */
    public static final UnreadableEvents FAIL = new UnreadableEvents(false, false, false, () -> { }, null);

    private final boolean tolerate;
    private final boolean logThem;
    private final boolean logPayloads;
    private final Runnable counter;
    private final Pausing pausing;

    private UnreadableEvents(boolean tolerate, boolean logThem, boolean logPayloads, Runnable counter,
                             Pausing pausing) {
        this.tolerate = tolerate;
        this.logThem = logThem;
        this.logPayloads = logPayloads;
        this.counter = counter;
        this.pausing = pausing;
    }

    /**
     * The policy the connector's configuration asks for. Connect has validated the values
     * already (they are its own keys), so only their meaning is read here.
     *
     * @param counter counts each dead-lettered event (the task's metric)
     */
    public static UnreadableEvents of(Map<String, String> props, Runnable counter) {
        return of(props, counter, null);
    }

    /** {@link #of(Map, Runnable)} with the pause failure policy, when {@code pausing} is not null. */
    public static UnreadableEvents of(Map<String, String> props, Runnable counter, Pausing pausing) {
        boolean tolerate = "all".equals(props.getOrDefault(TOLERANCE, "none").trim().toLowerCase(Locale.ROOT));
        return new UnreadableEvents(tolerate, flag(props, LOG_ENABLE), flag(props, LOG_INCLUDE_MESSAGES), counter,
                pausing);
    }

    private static boolean flag(Map<String, String> props, String key) {
        return Boolean.parseBoolean(props.getOrDefault(key, "false").trim());
    }

    public boolean tolerates() {
        return tolerate;
    }

    /** Whether a failing keyed event pauses its key ({@code pgque.failure.policy=pause}). */
    public boolean pauses() {
        return pausing != null;
    }

    /**
     * Handles one event that could not be converted: returns once it is paused or in the dead
     * letters, or throws to fail the task.
     *
     * @param deadLetters the dead letters of the reader that read it
     * @param where names the event: queue, consumer, slot or member, batch and event id
     * @return true when the event's key is blocked now: its later events of the batch are set
     *         aside in the engine, and the caller must not send them
     * @throws DataException with {@code errors.tolerance=none}, unless the event was paused
     */
    public boolean handle(Message message, DeadLetters deadLetters, String where, DataException failure) {
        if (pausing != null && message.partitionKey() != null) {
            return pause(message, deadLetters, where, failure);
        }
        if (pausing != null) {
            log.warn("{} cannot become a record and has no partition key, so no key to pause: {} decides ({})",
                    where, TOLERANCE, failure.getMessage());
        }
        deadLetterOrFail(message, deadLetters, where, failure);
        return false;
    }

    private boolean pause(Message message, DeadLetters deadLetters, String where, DataException failure) {
        String reason = "cannot become a record: " + failure.getMessage();
        boolean blocked = deadLetters.pause(message, pausing.retryAfter(), reason);
        if (blocked) {
            pausing.counter().run();
            log.warn("Paused {}: {}. Its key's later events wait until it is delivered (retried in {} ms) or "
                    + "dead-lettered; pgque.blocked_keys() lists it, docs/source.md (Paused keys) says how to "
                    + "resolve it", where, failure.getMessage(), pausing.retryAfter().toMillis());
        } else {
            counter.run();
            log.error("Moved {} to the dead letters: it could not become a record after the queue's max_retries "
                    + "pauses; its key goes on ({})", where, failure.getMessage());
        }
        return blocked;
    }

    private void deadLetterOrFail(Message message, DeadLetters deadLetters, String where, DataException failure) {
        if (!tolerate) {
            throw new DataException(failure.getMessage() + ". The task stops here; with " + TOLERANCE
                    + "=all such an event goes to the queue's dead letters and reading goes on.", failure);
        }
        String reason = "unreadable payload: " + failure.getMessage();
        deadLetters.deadLetter(message.msgId(), reason);
        counter.run();
        if (logThem) {
            if (logPayloads) {
                log.error("Moved {} to the dead letters ({}={}); payload: {}", where, TOLERANCE, "all",
                        message.payload(), failure);
            } else {
                log.error("Moved {} to the dead letters ({}={}): {}", where, TOLERANCE, "all", failure.getMessage());
            }
        }
    }
}
