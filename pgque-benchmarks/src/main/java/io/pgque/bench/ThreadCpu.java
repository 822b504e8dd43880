/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * CPU time of this JVM's threads, to tell which one a run waited on: a thread busy for nearly the
 * whole of a run is what bounds it, while a run whose busiest thread idles half the time is bound
 * by a round trip (the producer's one request in flight, the database) instead.
 */
final class ThreadCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Map<Long, Long> nanos;
    private final Map<Long, String> names;

    private ThreadCpu(Map<Long, Long> nanos, Map<Long, String> names) {
        this.nanos = nanos;
        this.names = names;
    }

    static ThreadCpu now() {
        Map<Long, Long> nanos = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long cpu = THREADS.getThreadCpuTime(info.getThreadId());
            if (cpu >= 0) {
                nanos.put(info.getThreadId(), cpu);
                names.put(info.getThreadId(), info.getThreadName());
            }
        }
        return new ThreadCpu(nanos, names);
    }

    /**
     * The {@code top} threads that used most CPU since {@code before}, as "name 1.23 s (87%)", the
     * share being of {@code seconds} (the run's span). Threads of one pool share a line.
     */
    String busiestSince(ThreadCpu before, double seconds, int top) {
        Map<String, Long> byName = new HashMap<>();
        nanos.forEach((id, cpu) -> byName.merge(pool(names.get(id)), cpu - before.nanos.getOrDefault(id, 0L), Long::sum));
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(byName.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        return sorted.stream().limit(top)
                .map(e -> String.format(Locale.ROOT, "%s %.2f s (%.0f%%)", e.getKey(), e.getValue() / 1e9,
                        100 * e.getValue() / 1e9 / seconds))
                .collect(Collectors.joining(", "));
    }

    /** CPU used since {@code before} by the threads whose name {@code named} accepts, in ns. */
    long nanosSince(ThreadCpu before, Predicate<String> named) {
        long total = 0;
        for (Map.Entry<Long, Long> thread : nanos.entrySet()) {
            if (named.test(names.get(thread.getKey()))) {
                total += thread.getValue() - before.nanos.getOrDefault(thread.getKey(), 0L);
            }
        }
        return total;
    }

    /** Kafka's request handlers and the like, counted together: "data-plane-kafka-request-handler-*". */
    private static String pool(String name) {
        return name.matches(".*-\\d+$") && name.startsWith("data-plane-kafka") ? name.replaceAll("-\\d+$", "-*") : name;
    }
}
