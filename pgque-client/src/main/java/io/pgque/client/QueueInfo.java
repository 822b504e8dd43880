/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Duration;
import java.time.Instant;

/**
 * A queue's configuration and state, from {@code pgque.get_queue_info}.
 *
 * @param queueName         the queue
 * @param ntables           number of rotating event tables
 * @param curTable          index of the table receiving inserts
 * @param rotationPeriod    how often tables rotate
 * @param switchTime        when the last rotation happened
 * @param externalTicker    true when ticks are pushed from outside rather than by {@code ticker()}
 * @param tickerPaused      true when the ticker skips this queue
 * @param tickerMaxCount    events after which a tick is due
 * @param tickerMaxLag      time after which a tick is due when events are waiting
 * @param tickerIdlePeriod  longest gap between ticks of an idle queue
 * @param tickerLag         time since the last tick; null if the queue has no tick
 * @param eventsPerSecond   recent insert rate estimate; null when unknown
 * @param newEvents         estimate of events inserted since the last tick; null when unknown
 * @param lastTickId        the latest tick; null if none
 */
public record QueueInfo(String queueName, int ntables, int curTable, Duration rotationPeriod,
                        Instant switchTime, boolean externalTicker, boolean tickerPaused,
                        int tickerMaxCount, Duration tickerMaxLag, Duration tickerIdlePeriod,
                        Duration tickerLag, Double eventsPerSecond, Long newEvents,
                        Long lastTickId) {
}
