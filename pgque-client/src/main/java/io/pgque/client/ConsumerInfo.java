/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.time.Duration;

/**
 * A subscription's position and activity, from {@code pgque.get_consumer_info}.
 *
 * @param queueName     the queue
 * @param consumerName  the consumer (partition slots appear as {@code consumer#k/N})
 * @param lag           age of the tick the consumer has finished up to
 * @param lastSeen      time since the consumer last opened or finished a batch
 * @param lastTick      the tick the consumer has finished up to
 * @param currentBatch  the open batch, or null
 * @param nextTick      the end tick of the open batch, or null
 * @param pendingEvents estimate of events not yet consumed (an upper bound, not a count)
 */
public record ConsumerInfo(String queueName, String consumerName, Duration lag, Duration lastSeen,
                           Long lastTick, Long currentBatch, Long nextTick, Long pendingEvents) {
}
