/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RoundTrip} on the embedded stack (broker and worker in the test JVM, zonky PostgreSQL):
 * what every build runs. {@link RoundTripContainersIT} runs the same scenario against containers.
 */
class RoundTripIT {

    private static OwnPostgres postgres;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = OwnPostgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void atLeastOnce_everyEventArrivesInPerKeyOrder_acrossAPostgresRestart() throws Exception {
        try (Stack stack = new EmbeddedStack("round-trip-alo", postgres, false)) {
            RoundTrip.run(stack, false);
        }
    }

    @Test
    void exactlyOnce_everyEventArrivesOnceInPerKeyOrder_acrossAPostgresRestart() throws Exception {
        try (Stack stack = new EmbeddedStack("round-trip-eos", postgres, true)) {
            RoundTrip.run(stack, true);
        }
    }
}
