/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

/**
 * What a record reports to once Kafka has taken it (or Connect dropped it on purpose, e.g. a
 * filter transform): the batch the record belongs to counts it as done.
 */
@FunctionalInterface
public interface DeliveryTicket {

    void delivered();
}
