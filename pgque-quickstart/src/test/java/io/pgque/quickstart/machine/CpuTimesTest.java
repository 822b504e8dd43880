/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.quickstart.report.MachineLoad;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CpuTimesTest {

    private static final String STAT_BEFORE = """
            cpu  1000 50 400 8000 100 10 40 0 300 0
            cpu0 500 25 200 4000 50 5 20 0 150 0
            cpu1 500 25 200 4000 50 5 20 0 150 0
            intr 12345
            """;
    // 900 more ticks of work (user 600, system 250, softirq 50), 100 more idle or waiting
    private static final String STAT_AFTER = """
            cpu  1600 50 650 8080 120 10 90 0 700 0
            cpu0 800 25 325 4040 60 5 45 0 350 0
            """;

    @Test
    void busyIsTheShareOfTicksNotIdleNorWaitingForIo() {
        CpuTimes before = CpuTimes.parse(STAT_BEFORE, 2_000).orElseThrow();
        CpuTimes after = CpuTimes.parse(STAT_AFTER, 2_250).orElseThrow();
        // guest time (the ninth field) is part of user already and is not counted twice
        assertEquals(1000 + 50 + 400 + 10 + 40, before.busyTicks());
        assertEquals(8000 + 100, before.idleTicks());

        MachineLoad load = after.since(before, 2);
        assertEquals(0.9, load.busy(), 1e-9);
        assertEquals(2, load.cores());
        // 250 of the 1,000 ticks both cores had: half a core
        assertEquals(0.5, load.jitCores(), 1e-9);
        assertTrue(load.saturated());
    }

    @Test
    void noCompilerShareWhenItCouldNotBeReadAndNothingWithoutACpuLine() {
        CpuTimes before = CpuTimes.parse(STAT_BEFORE, -1).orElseThrow();
        CpuTimes after = CpuTimes.parse(STAT_AFTER, -1).orElseThrow();
        assertEquals(-1, after.since(before, 2).jitCores());
        assertEquals(Optional.empty(), CpuTimes.parse("intr 1 2 3\nctxt 99\n", 0));
    }

    @Test
    void onlyHotSpotCompilerThreadsCount() {
        String c2 = "4711 (C2 CompilerThre) S 4700 4700 1 0 -1 4194368 10 0 0 0 "
                + "120 30 0 0 20 0 40 0 100 0";
        String named = "4712 (my (odd) thread) R 4700 4700 1 0 -1 4194368 10 0 0 0 "
                + "999 1 0 0 20 0 40 0 100 0";
        assertEquals(150, CpuTimes.compilerTicksOf(c2));
        assertEquals(0, CpuTimes.compilerTicksOf(named));
        assertEquals(0, CpuTimes.compilerTicksOf("garbage"));
    }

    @Test
    void readsThisMachineWhereThereIsAProcStat() {
        Optional<CpuTimes> now = CpuTimes.now();
        assertEquals(Files.isReadable(Path.of("/proc/stat")), now.isPresent(), now.toString());
        now.ifPresent(t -> assertTrue(t.busyTicks() > 0 && t.jitTicks() >= 0, t.toString()));
    }
}
