/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

/** What a connector promises about duplicates after a failure. */
public enum DeliveryGuarantee {
    /** No loss; a failure may replay a suffix of what was already delivered. */
    AT_LEAST_ONCE,
    /** No loss and no duplicates: Kafka offsets and PgQue state move in one transaction. */
    EXACTLY_ONCE;

    public static final EnumChoice<DeliveryGuarantee> CHOICE = EnumChoice.of(DeliveryGuarantee.class);
}
