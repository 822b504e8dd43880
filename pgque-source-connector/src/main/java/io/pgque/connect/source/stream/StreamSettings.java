/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import java.time.Duration;

/**
 * How a stream paces its readers.
 *
 * @param chunkSize    events per read from the database; a poll hands over at most one chunk of a
 *                     reader without Kafka transactions (with them, up to two, or the chunks of a
 *                     batch read ahead in one query)
 * @param pollInterval how long an empty or unclaimable reader rests, and the longest one poll() waits
 * @param backoff      pause after a transient database failure, before poll() reports it
 * @param keepAlive    how often a reader whose batch waits on Kafka keeps its right to read alive
 *                     (a third of the lease TTL or dead interval leaves two more chances), and
 *                     the longest a delivered batch waits for its read-ahead
 * @param sendAhead    whether a batch read ahead may go out before the one before it is acked
 */
public record StreamSettings(int chunkSize, Duration pollInterval, Duration backoff, Duration keepAlive,
                             boolean sendAhead) {
}
