/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.machine;

import io.pgque.quickstart.report.MachineLoad;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The machine's CPU time at one moment, busy and idle, and the part of it this JVM's JIT compiler
 * threads used, in clock ticks from Linux's {@code /proc}; two of them give a {@link MachineLoad}.
 * The whole machine, not only this JVM: PostgreSQL runs as processes of its own.
 *
 * @param busyTicks clock ticks of all cores spent working (user, nice, system, irq, softirq, steal)
 * @param idleTicks clock ticks of all cores spent idle or waiting for I/O
 * @param jitTicks  clock ticks this JVM's compiler threads ran, -1 when they cannot be read
 */
public record CpuTimes(long busyTicks, long idleTicks, long jitTicks) {

    private static final Path PROC_STAT = Path.of("/proc/stat");
    private static final Path OWN_THREADS = Path.of("/proc/self/task");

    /** Now; empty where there is no {@code /proc/stat} (not Linux) or it cannot be read. */
    public static Optional<CpuTimes> now() {
        long jit = compilerTicks();
        try {
            return parse(Files.readString(PROC_STAT), jit);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The first line of {@code /proc/stat}, {@code cpu  user nice system idle iowait irq softirq
     * steal ...}, summed over all cores; empty when it is not there.
     */
    static Optional<CpuTimes> parse(String procStat, long jitTicks) {
        for (String line : procStat.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 5 || !f[0].equals("cpu")) {
                continue;
            }
            long busy = 0;
            long idle = 0;
            // guest times are already counted in user and nice: fields 1..8 only
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                long ticks = Long.parseLong(f[i]);
                if (i == 4 || i == 5) {
                    idle += ticks;
                } else {
                    busy += ticks;
                }
            }
            return Optional.of(new CpuTimes(busy, idle, jitTicks));
        }
        return Optional.empty();
    }

    /**
     * User and system ticks of one thread from its {@code /proc/.../task/<tid>/stat} line, when
     * its name (the {@code comm} in parentheses) is a HotSpot compiler thread's, else 0.
     */
    static long compilerTicksOf(String threadStat) {
        int open = threadStat.indexOf('(');
        int close = threadStat.lastIndexOf(')');
        if (open < 0 || close < open) {
            return 0;
        }
        String name = threadStat.substring(open + 1, close);
        if (!name.startsWith("C1 Compiler") && !name.startsWith("C2 Compiler")) {
            return 0;
        }
        // after the name: state (field 3), ..., utime (field 14), stime (field 15)
        String[] f = threadStat.substring(close + 1).trim().split("\\s+");
        return f.length > 12 ? Long.parseLong(f[11]) + Long.parseLong(f[12]) : 0;
    }

    /** The load between {@code earlier} and this. */
    public MachineLoad since(CpuTimes earlier, int cores) {
        long busy = busyTicks - earlier.busyTicks;
        long all = busy + idleTicks - earlier.idleTicks;
        double jitCores = jitTicks < 0 || earlier.jitTicks < 0 || all <= 0 ? -1
                : (double) (jitTicks - earlier.jitTicks) * cores / all;
        return new MachineLoad(all <= 0 ? 0 : (double) busy / all, cores, jitCores);
    }

    private static long compilerTicks() {
        long ticks = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(OWN_THREADS)) {
            for (Path thread : threads) {
                try {
                    ticks += compilerTicksOf(Files.readString(thread.resolve("stat")));
                } catch (IOException ended) {
                    // the thread ended while we looked: its time is gone with it
                }
            }
            return ticks;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
