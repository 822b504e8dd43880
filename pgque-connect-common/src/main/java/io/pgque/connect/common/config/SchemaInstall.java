/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

/** Whether a connector may install the bundled engine SQL into the database. */
public enum SchemaInstall {
    /** Expect the {@code pgque} schema to be there; report its absence. */
    NONE,
    /** Install the bundled engine when the {@code pgque} schema is absent (needs a role that may create it). */
    IF_MISSING;

    public static final EnumChoice<SchemaInstall> CHOICE = EnumChoice.of(SchemaInstall.class);
}
