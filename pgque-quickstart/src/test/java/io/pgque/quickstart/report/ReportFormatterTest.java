/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.quickstart.postgres.SlotLag;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReportFormatterTest {

    @Test
    void aGoodRunSaysAllArrivedAndOrderHeld() {
        Report r = new Report(20_000, 20_000, 20_000, 0, 0, 200, Duration.ofMillis(4_000), 92_345, 310_500,
                List.of(new SlotLag(0, "pgque-source-0-abc", 1, 0, Duration.ofMillis(400)),
                        new SlotLag(1, null, 2, 12, null)), 10_000,
                Optional.of(new Stages(new Stages.Part(30_100, 80_200), new Stages.Part(45_000, 98_700),
                        new Stages.Part(60_300, 150_400))),
                Optional.of(new MachineLoad(0.52, 2, 0.3)));
        String text = ReportFormatter.format(r);
        assertTrue(text.contains("report: OK"), text);
        assertTrue(text.contains("20,000") && text.contains("all arrived"), text);
        assertTrue(text.contains("5,000/s"), "throughput: " + text);
        assertTrue(text.contains("92.3 ms") && text.contains("310.5 ms"), "latencies: " + text);
        assertTrue(text.contains("held") && text.contains("0 out of order across 200 tenants"), text);
        assertTrue(text.contains("pgque-source-0-abc") && text.contains("(none)") && text.contains("0.4 s"), text);
        assertTrue(text.contains("warm-up before measuring") && text.contains("10,000") && text.contains("not counted"), text);
        assertTrue(text.contains("into the queue p50 / p99") && text.contains("30.1 ms / 80.2 ms"), "stages: " + text);
        assertTrue(text.contains("waiting for a tick p50 / p99") && text.contains("45.0 ms / 98.7 ms"), "stages: " + text);
        assertTrue(text.contains("tick to output p50 / p99") && text.contains("60.3 ms / 150.4 ms"), "stages: " + text);
        assertTrue(text.contains("machine CPU during the run") && text.contains("52% busy")
                && text.contains("of 2 cores, of it the JIT compiler 0.3 of a core"), "machine: " + text);
        assertFalse(text.contains("nearly all busy"), "not saturated at 52%: " + text);
        assertTrue(text.contains("still compiling") && text.contains("-XX:TieredStopAtLevel=1"),
                "0.3 of a core compiling: " + text);
    }

    @Test
    void aSaturatedMachineIsNamedAsPartOfTheTail() {
        Report r = new Report(20_000, 20_000, 20_000, 0, 0, 200, Duration.ofMillis(4_000), 140_000, 290_000,
                List.of(), 30_000, Optional.empty(),
                Optional.of(new MachineLoad(0.93, 2, -1)));
        String text = ReportFormatter.format(r);
        assertTrue(text.contains("93% busy") && text.contains("of 2 cores"), text);
        assertFalse(text.contains("JIT compiler"), "no compiler time from this JVM: " + text);
        assertTrue(text.contains("nearly all busy") && text.contains("--rate"), text);
        assertFalse(text.contains("still compiling"), "the compiler's share is unknown: " + text);
    }

    @Test
    void aBadRunSaysWhatWentWrong() {
        Report r = new Report(100, 100, 97, 3, 2, 10, Duration.ofSeconds(1), 1_000, 2_000, List.of(), 0,
                Optional.empty(), Optional.empty());
        String text = ReportFormatter.format(r);
        assertTrue(text.contains("report: FAILED"), text);
        assertTrue(text.contains("MISSING 3"), text);
        assertTrue(text.contains("BROKEN"), text);
        assertTrue(text.contains("replays after a failure"), text);
        assertTrue(text.contains("include the JVM's cold start"), text);
        assertTrue(text.contains("not readable on this system"), text);
    }

    @Test
    void progressLineShowsUnknownsAsQuestionMarks() {
        String line = new Progress(Duration.ofSeconds(4), 8_000, -1, 7_500, -1, null).line();
        assertTrue(line.contains("sent 8,000") && line.contains("in queue ?") && line.contains("out 7,500"), line);
    }
}
