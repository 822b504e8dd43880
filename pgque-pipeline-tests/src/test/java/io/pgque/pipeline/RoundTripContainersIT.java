/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * {@link RoundTrip} against real containers: the Apache Kafka image (KRaft, the release of the
 * build's Kafka libraries) and the official PostgreSQL image of each supported major, with a
 * Connect worker in the test JVM. Runs with {@code ./mvnw verify -Pcontainers} on a machine
 * with Docker; without Docker every case is reported skipped. See docs/testing.md.
 */
@Testcontainers(disabledWithoutDocker = true)
class RoundTripContainersIT {

    @ParameterizedTest(name = "at least once, {0}")
    @ValueSource(strings = {"postgres:14", "postgres:15", "postgres:17"})
    void atLeastOnce_everyEventArrivesInPerKeyOrder_acrossAPostgresRestart(String postgresImage) throws Exception {
        try (Stack stack = new ContainerStack(postgresImage, false)) {
            RoundTrip.run(stack, false);
        }
    }

    @ParameterizedTest(name = "exactly once, {0}")
    @ValueSource(strings = {"postgres:14", "postgres:15", "postgres:17"})
    void exactlyOnce_everyEventArrivesOnceInPerKeyOrder_acrossAPostgresRestart(String postgresImage) throws Exception {
        try (Stack stack = new ContainerStack(postgresImage, true)) {
            RoundTrip.run(stack, true);
        }
    }
}
