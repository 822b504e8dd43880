/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

import io.pgque.quickstart.postgres.SlotLag;

import java.util.Locale;
import java.util.function.Function;

/** Renders a {@link Report} as the small tables the quickstart prints at the end of a run. */
public final class ReportFormatter {

    private ReportFormatter() {
    }

    public static String format(Report r) {
        TextTable summary = new TextTable("measure", "value", "")
                .alignRight(1)
                .row("events in (acked on the input topic)", Numbers.count(r.eventsIn()), "of " + Numbers.count(r.eventsPlanned()))
                .row("events out (distinct, output topic)", Numbers.count(r.eventsOut()),
                        r.allArrived() ? "all arrived" : "MISSING " + Numbers.count(r.eventsPlanned() - r.eventsOut()))
                .row("duplicates", Numbers.count(r.duplicates()), r.duplicates() == 0 ? "" : "replays after a failure (at-least-once)")
                .row("throughput", Numbers.rate(r.throughput()), "over " + Numbers.seconds(r.duration()))
                .row("end-to-end latency p50", Numbers.millis(r.latencyP50Micros()), "send -> read from the output topic")
                .row("end-to-end latency p99", Numbers.millis(r.latencyP99Micros()), "")
                .row("  into the queue p50 / p99", stage(r, Stages::intoQueue), "send -> the sink's write in PostgreSQL")
                .row("  waiting for a tick p50 / p99", stage(r, Stages::waitForTick), "the write -> the tick that made it readable")
                .row("  tick to output p50 / p99", stage(r, Stages::tickToOutput), "slot read, source task, output topic")
                .row("machine CPU during the run", r.machine().map(m -> Numbers.percent(m.busy()) + " busy").orElse("?"),
                        r.machine().map(ReportFormatter::machineNote).orElse("not readable on this system"))
                .row("warm-up before measuring", Numbers.count(r.warmupEvents()),
                        r.warmupEvents() == 0 ? "none: the figures include the JVM's cold start" : "events, not counted above")
                .row("per-key order", r.orderHeld() ? "held" : "BROKEN",
                        Numbers.count(r.outOfOrder()) + " out of order across " + Numbers.count(r.tenants()) + " tenants");

        TextTable slots = new TextTable("slot", "lease owner", "epoch", "pending", "lag").alignRight(0, 2, 3, 4);
        for (SlotLag s : r.slots()) {
            slots.row(s.slot(), s.owner() == null ? "(none)" : s.owner(), s.epoch(), Numbers.count(s.pendingEvents()),
                    Numbers.seconds(s.lag()));
        }

        return "\n=== PgQue quickstart report: " + (r.ok() ? "OK" : "FAILED") + " ===\n"
                + summary.render("  ")
                + (r.machine().filter(MachineLoad::saturated).isPresent() ? SATURATED : "")
                + (r.machine().filter(MachineLoad::stillCompiling).isPresent() ? COMPILING : "")
                + "\n  per-slot lag of the source's consumer (pending: events not yet read by the slot; lag: age of its last finished tick)\n"
                + slots.render("  ");
    }

    private static final String SATURATED = "\n  The machine's cores were nearly all busy (everything here shares them: broker, worker, PostgreSQL,\n"
            + "  the demo's clients), so every stage also waited for a free core: the tail above is partly the\n"
            + "  machine's. A lower --rate, or more cores, shows the pipeline's own latency.\n";

    private static final String COMPILING = "\n  The JVM's optimizing (C2) compiler was still compiling the events' path, as it does for a minute\n"
            + "  and more after a start on a small machine, and took cores from the pipeline; a worker that has\n"
            + "  run for a while no longer does. Run with -XX:TieredStopAtLevel=1 (as the README does) to leave\n"
            + "  it out of a short demo.\n";

    private static String machineNote(MachineLoad m) {
        String cores = "of " + m.cores() + (m.cores() == 1 ? " core" : " cores");
        return m.jitCores() < 0 ? cores
                : cores + ", of it the JIT compiler " + String.format(Locale.ROOT, "%.1f", m.jitCores()) + " of a core";
    }

    private static String stage(Report r, Function<Stages, Stages.Part> part) {
        return r.stages().map(part).filter(p -> p.p50Micros() >= 0)
                .map(p -> Numbers.millis(p.p50Micros()) + " / " + Numbers.millis(p.p99Micros())).orElse("?");
    }
}
