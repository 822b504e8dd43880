/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;

/**
 * CPU time spent so far by this JVM (broker, worker, tasks and benchmark together) and by the
 * PostgreSQL server (postmaster, its live children and the children it has reaped), in
 * nanoseconds: on a machine whose cores every part shares, a drain's rate is in effect its CPU
 * cost per event, and this says on which side of the JDBC socket that cost is. The server's share
 * comes from Linux's {@code /proc}; elsewhere it is -1.
 */
record CpuUse(long jvmNanos, long pgNanos) {

    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux

    /** The PostgreSQL server's postmaster, found through the backend serving {@code c}; -1 without /proc. */
    static long postmasterOf(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
            rs.next();
            Path status = Path.of("/proc", Integer.toString(rs.getInt(1)), "status");
            if (!Files.isReadable(status)) {
                return -1;
            }
            try (Stream<String> lines = Files.lines(status)) {
                return lines.filter(l -> l.startsWith("PPid:")).mapToLong(l -> Long.parseLong(l.substring(5).trim()))
                        .findFirst().orElse(-1);
            }
        } catch (IOException e) {
            return -1;
        }
    }

    static CpuUse now(long postmaster) {
        long jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new CpuUse(jvm, postmaster < 0 ? -1 : serverTicks(postmaster) * NANOS_PER_TICK);
    }

    CpuUse since(CpuUse before) {
        return new CpuUse(jvmNanos - before.jvmNanos, pgNanos < 0 ? -1 : pgNanos - before.pgNanos);
    }

    /** Microseconds of CPU per event on each side. */
    double jvmMicrosPer(long events) {
        return jvmNanos / 1_000.0 / events;
    }

    double pgMicrosPer(long events) {
        return pgNanos < 0 ? Double.NaN : pgNanos / 1_000.0 / events;
    }

    /** utime + stime of the postmaster and its live children, and cutime + cstime of the postmaster (its reaped children). */
    private static long serverTicks(long postmaster) {
        long total = 0;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long[] stat = stat(p);
                if (stat == null) {
                    continue; // gone in between
                }
                long pid = Long.parseLong(name);
                if (pid == postmaster) {
                    total += stat[1] + stat[2] + stat[3] + stat[4];
                } else if (stat[0] == postmaster) {
                    total += stat[1] + stat[2];
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
    }

    /** ppid, utime, stime, cutime, cstime from /proc/pid/stat (fields 4, 14-17); null if unreadable. */
    private static long[] stat(Path proc) {
        try {
            String line = Files.readString(proc.resolve("stat"));
            // The command name (field 2) is in parentheses and may hold spaces: count from after it.
            String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]),
                    Long.parseLong(f[13]), Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
