/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

/**
 * How busy the machine was while the demo measured. Everything of the quickstart (broker, worker,
 * both connectors, PostgreSQL, the demo's clients) shares the machine's cores, so once they are
 * nearly all busy every stage also waits for a free core, and the latencies say more about the
 * machine than about the pipeline. The JIT compiler's share is named apart: a JVM that started
 * seconds ago still compiles the code on the events' path, which a worker that has run for a
 * while no longer does.
 *
 * @param busy         fraction of all cores' time not idle over the run, 0 to 1
 * @param cores        cores the machine has
 * @param jitCores     cores' worth of time the JVM's JIT compiler threads ran on average, -1 when unknown
 */
public record MachineLoad(double busy, int cores, double jitCores) {

    /** From this busy fraction on, waiting for a core is a large part of the tail. */
    static final double SATURATED = 0.85;

    /** From this share of a core on, the compiler competes with the pipeline for the cores. */
    static final double COMPILING = 0.25;

    public boolean saturated() {
        return busy >= SATURATED;
    }

    /** The JVM's JIT compiler took a good part of a core while the demo measured. */
    public boolean stillCompiling() {
        return jitCores >= COMPILING;
    }
}
