/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.client.Message;
import org.apache.kafka.connect.errors.DataException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Map;

/**
 * What happens to an event whose payload cannot become a record value (a payload that is not
 * JSON under {@code pgque.value.format=json}), by Connect's own error settings:
 * {@code errors.tolerance=none} (the default) fails the task, naming the event;
 * {@code errors.tolerance=all} moves that one event to the engine's dead letters with the reason,
 * logs it if {@code errors.log.enable}, counts it, and the rest of the batch goes on in order.
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

    /** Where a tolerated event goes: the engine's dead letters, through the reader that read it. */
    @FunctionalInterface
    public interface DeadLetters {
        void deadLetter(long msgId, String reason);
    }

    /** Fails on the first unreadable event, as with {@code errors.tolerance=none}. */
    public static final UnreadableEvents FAIL = new UnreadableEvents(false, false, false, () -> { });

    private final boolean tolerate;
    private final boolean logThem;
    private final boolean logPayloads;
    private final Runnable counter;

    private UnreadableEvents(boolean tolerate, boolean logThem, boolean logPayloads, Runnable counter) {
        this.tolerate = tolerate;
        this.logThem = logThem;
        this.logPayloads = logPayloads;
        this.counter = counter;
    }

    /**
     * The policy the connector's configuration asks for. Connect has validated the values
     * already (they are its own keys), so only their meaning is read here.
     *
     * @param counter counts each dead-lettered event (the task's metric)
     */
    public static UnreadableEvents of(Map<String, String> props, Runnable counter) {
        boolean tolerate = "all".equals(props.getOrDefault(TOLERANCE, "none").trim().toLowerCase(Locale.ROOT));
        return new UnreadableEvents(tolerate, flag(props, LOG_ENABLE), flag(props, LOG_INCLUDE_MESSAGES), counter);
    }

    private static boolean flag(Map<String, String> props, String key) {
        return Boolean.parseBoolean(props.getOrDefault(key, "false").trim());
    }

    public boolean tolerates() {
        return tolerate;
    }

    /**
     * Handles one event that could not be converted: returns once it is in the dead letters, or
     * throws to fail the task.
     *
     * @param deadLetters the dead letters of the reader that read it
     * @param where names the event: queue, consumer, slot or member, batch and event id
     * @throws DataException with {@code errors.tolerance=none}
     */
    public void handle(Message message, DeadLetters deadLetters, String where, DataException failure) {
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
