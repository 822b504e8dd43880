/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.template;

/**
 * Supplies the value of each placeholder while one template is rendered, typically from one
 * record. A null value renders as nothing.
 */
@FunctionalInterface
public interface PlaceholderValues {

    String valueOf(Placeholder placeholder);
}
