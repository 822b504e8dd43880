/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * The queue settings {@code pgque.set_queue_config} accepts, with the name the engine knows them
 * by. The typed setters of {@link Queues} are the convenient way to change them.
 */
public enum QueueParam {
    /** Events after which a tick is due (integer &gt; 0). */
    TICKER_MAX_COUNT("ticker_max_count"),
    /** Time after which a tick is due when events are waiting (interval &gt; 0). */
    TICKER_MAX_LAG("ticker_max_lag"),
    /** Longest gap between ticks of an idle queue (interval &gt; 0). */
    TICKER_IDLE_PERIOD("ticker_idle_period"),
    /** When true, {@code ticker()} skips the queue. */
    TICKER_PAUSED("ticker_paused"),
    /** How often the event tables rotate (interval &gt; 0). */
    ROTATION_PERIOD("rotation_period"),
    /** When true, ticks are pushed from outside instead of made by {@code ticker()}. */
    EXTERNAL_TICKER("external_ticker"),
    /** Redeliveries before a nacked event goes to the dead letter table (integer &ge; 0). */
    MAX_RETRIES("max_retries");

    private final String paramName;

    QueueParam(String paramName) {
        this.paramName = paramName;
    }

    /** The name {@code set_queue_config} expects. */
    public String paramName() {
        return paramName;
    }
}
