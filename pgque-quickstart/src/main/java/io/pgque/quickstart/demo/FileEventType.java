/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

/** The lifecycle events of a stored file, as the multi-tenant storage service of the brief emits them. */
public enum FileEventType {
    FileCreated,
    FileOverwritten,
    FileDeleted
}
