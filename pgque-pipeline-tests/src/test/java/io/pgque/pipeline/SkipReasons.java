/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints each skipped test class or method with the reason JUnit gives, one line each: the
 * build's own summary only counts them ("Skipped: 2"), and a reader of a build without Docker
 * should see at once that the container variants were skipped and why. Registered through
 * {@code META-INF/services}, so it runs in every test JVM of this module.
 */
public final class SkipReasons implements TestExecutionListener {

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        System.out.println("[skipped] " + test.getDisplayName() + ": " + reason);
    }
}
