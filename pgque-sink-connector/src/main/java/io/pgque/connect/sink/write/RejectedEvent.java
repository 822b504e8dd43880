/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

/** An event the database refused because of its own content, and the database's reason. */
public record RejectedEvent(PendingEvent event, String reason) {
}
