/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

/**
 * When the database says an event entered the queue, in epoch microseconds.
 *
 * @param writtenMicros the event's {@code ev_time}: the start of the sink's transaction that wrote it
 * @param tickedMicros  the time of the first tick that made it readable, -1 if no tick has yet
 */
public record QueuedAt(long writtenMicros, long tickedMicros) {
}
