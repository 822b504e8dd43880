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
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * CPU time spent so far by this JVM (broker, worker, tasks and benchmark together) and by the
 * PostgreSQL server (postmaster, its live children and the children it has reaped), in
 * nanoseconds: on a machine whose cores every part shares, a drain's rate is in effect its CPU
 * cost per event, and this says on which side of the JDBC socket that cost is. The server's share
 * comes from Linux's {@code /proc}; elsewhere it is -1.
 *
 * <p>The server's share is also split: its <em>sessions</em> (client backends and WAL senders,
 * the work its clients asked for) apart from its background processes (checkpointer, WAL writer,
 * autovacuum and the like), whose timing over a short run is noisy. A session counts by its own
 * CPU, so one that ends within a run loses its share of it (the benchmarks keep theirs open).
 */
record CpuUse(long jvmNanos, long pgNanos, Map<Long, Long> sessionTicks) {

    private static final long NANOS_PER_TICK = 10_000_000L; // USER_HZ is 100 on Linux
    /** Process titles of the server's own processes (after "postgres: "): everything else is a session. */
    private static final Set<String> BACKGROUND = Set.of("checkpointer", "background writer", "walwriter",
            "autovacuum launcher", "autovacuum worker", "logical replication launcher", "archiver",
            "stats collector", "walsummarizer", "io worker", "startup", "walreceiver", "logical replication worker",
            "logical replication apply worker", "logical replication tablesync worker", "slotsync worker");

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
        Map<Long, Long> sessions = new HashMap<>();
        return new CpuUse(jvm, postmaster < 0 ? -1 : serverTicks(postmaster, sessions) * NANOS_PER_TICK, sessions);
    }

    CpuUse since(CpuUse before) {
        Map<Long, Long> sessions = new HashMap<>();
        sessionTicks.forEach((pid, ticks) -> sessions.put(pid, ticks - before.sessionTicks.getOrDefault(pid, 0L)));
        return new CpuUse(jvmNanos - before.jvmNanos, pgNanos < 0 ? -1 : pgNanos - before.pgNanos, sessions);
    }

    /** CPU of the server's sessions (client backends, WAL senders), ns: meaningful on a {@link #since} difference. */
    long sessionNanos() {
        return pgNanos < 0 ? -1 : sessionTicks.values().stream().mapToLong(Long::longValue).sum() * NANOS_PER_TICK;
    }

    double sessionMicrosPer(long events) {
        return pgNanos < 0 ? Double.NaN : sessionNanos() / 1_000.0 / events;
    }

    /**
     * The sessions' CPU per event by who asked for it: the {@code application_name} of each
     * session alive now (a connector's pools name themselves after the pool, task numbers
     * folded into "N"; WAL senders by their backend type), largest first. Meaningful on a
     * {@link #since} difference taken just before, while the sessions of the window still run;
     * a session gone since counts as "(ended)".
     */
    String sessionsByApplication(Connection c, long events) throws SQLException {
        if (pgNanos < 0) {
            return "";
        }
        Map<Long, String> names = new HashMap<>();
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select pid, coalesce(nullif(application_name, ''), backend_type) "
                     + "from pg_stat_activity")) {
            while (rs.next()) {
                names.put(rs.getLong(1), rs.getString(2).replaceAll("-\\d+(?=-|$)", "-N"));
            }
        }
        Map<String, Long> ticks = new java.util.TreeMap<>();
        sessionTicks.forEach((pid, t) -> ticks.merge(names.getOrDefault(pid, "(ended)"), t, Long::sum));
        StringBuilder out = new StringBuilder();
        ticks.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> out.append(out.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
                        .append(String.format(java.util.Locale.ROOT, "%.1f",
                                e.getValue() * NANOS_PER_TICK / 1_000.0 / events)));
        return out.toString();
    }

    /** Microseconds of CPU per event on each side. */
    double jvmMicrosPer(long events) {
        return jvmNanos / 1_000.0 / events;
    }

    double pgMicrosPer(long events) {
        return pgNanos < 0 ? Double.NaN : pgNanos / 1_000.0 / events;
    }

    /**
     * utime + stime of the postmaster and its live children, and cutime + cstime of the postmaster
     * (its reaped children); each session's own into {@code sessions} by pid.
     */
    private static long serverTicks(long postmaster, Map<Long, Long> sessions) {
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
                    if (isSession(p)) {
                        sessions.put(pid, stat[1] + stat[2]);
                    }
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return total;
    }

    /** A client backend or WAL sender, by its process title ("postgres: walsender ...", "postgres: user db host ..."). */
    private static boolean isSession(Path proc) {
        try {
            String title = new String(Files.readAllBytes(proc.resolve("cmdline")), java.nio.charset.StandardCharsets.UTF_8)
                    .replace('\0', ' ').trim();
            if (!title.startsWith("postgres: ")) {
                return false;
            }
            String rest = title.substring("postgres: ".length());
            return BACKGROUND.stream().noneMatch(rest::startsWith);
        } catch (IOException e) {
            return false;
        }
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
