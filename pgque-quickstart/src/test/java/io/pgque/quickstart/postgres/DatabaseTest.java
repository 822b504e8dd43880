/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

class DatabaseTest {

    @Test
    void theAddressIsTheUrlWithoutItsPrefix() {
        Database db = new Database("jdbc:postgresql://localhost:5432/postgres?user=postgres", "postgres", "");
        assertEquals("localhost:5432/postgres?user=postgres", db.address());
    }

    @Test
    void thePasswordStaysOutOfToString() {
        assertFalse(new Database("jdbc:postgresql://h/db", "u", "s3cret").toString().contains("s3cret"));
    }
}
