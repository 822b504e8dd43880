/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.pipeline;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Faults injected one after another while the input flows, each when the input has reached a
 * given share of its total, and each left to settle (its step waits for the cluster to recover)
 * before the next. Every fault is announced on the report as it is injected.
 */
final class FaultScript {

    /** Injects one fault and waits until the pipe has recovered from it. */
    @FunctionalInterface
    interface Step {
        void inject() throws Exception;
    }

    private record Fault(double atShare, String what, Step step) {
    }

    private final List<Fault> faults = new ArrayList<>();

    /** Adds a fault to inject once {@code share} (0..1) of the input was produced. */
    FaultScript at(double share, String what, Step step) {
        faults.add(new Fault(share, what, step));
        return this;
    }

    /** Runs every fault in order; {@code produced} tells how far the input is. */
    void run(IntSupplier produced, int total, Duration timeout, PipelineReport report) throws Exception {
        for (Fault fault : faults) {
            int due = (int) Math.ceil(fault.atShare() * total);
            Waits.until(() -> produced.getAsInt() >= due, timeout, "input to reach " + due + " records");
            report.injected(fault.what());
            fault.step().inject();
            report.settled(fault.what());
        }
    }

    int size() {
        return faults.size();
    }
}
