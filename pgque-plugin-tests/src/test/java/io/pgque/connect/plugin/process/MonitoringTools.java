/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin.process;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Prometheus programs the monitoring tests run, from Debian's packages {@code prometheus}
 * ({@code prometheus}, {@code promtool}) and {@code prometheus-postgres-exporter} ({@code .ci/run}
 * installs them). Without them the calling test is skipped with one line saying what it needs,
 * unless {@code -Dpgque.test.prometheus=required} or the environment's
 * {@code PGQUE_TEST_PROMETHEUS=required} (which {@code .ci/run} sets) makes their absence a
 * failure. {@code -Dpgque.prometheus.bin=<folder>} looks for them elsewhere than {@code /usr/bin}.
 */
public final class MonitoringTools {

    private static final Path BIN = Path.of(System.getProperty("pgque.prometheus.bin", "/usr/bin"));
    private static final String REQUIREMENT = "pgque.test.prometheus";
    private static final String REQUIREMENT_ENV = "PGQUE_TEST_PROMETHEUS";
    /** What was said already: a suite whose tests each need a program says so once. */
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private MonitoringTools() {
    }

    /** promtool, of package prometheus. */
    public static Path promtool() {
        return require("promtool", "prometheus");
    }

    /** The Prometheus server, of package prometheus. */
    public static Path prometheus() {
        return require("prometheus", "prometheus");
    }

    /** postgres_exporter, as Debian names it. */
    public static Path postgresExporter() {
        return require("prometheus-postgres-exporter", "prometheus-postgres-exporter");
    }

    private static Path require(String program, String debianPackage) {
        Path path = BIN.resolve(program);
        if (Files.isExecutable(path)) {
            return path;
        }
        String suite = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .map(StackWalker.StackFrame::getDeclaringClass)
                .filter(c -> c != MonitoringTools.class && c.getSimpleName().endsWith("IT"))
                .findFirst().map(Class::getSimpleName).orElse("this test"));
        String need = suite + " needs " + path + " (Debian package " + debianPackage
                + "): apt-get install -y prometheus prometheus-postgres-exporter, as .ci/run does";
        if (required()) {
            throw new IllegalStateException(need + " (required by -D" + REQUIREMENT + " or " + REQUIREMENT_ENV + ")");
        }
        if (SAID.add(need)) {
            System.out.println("[skipped] " + need + "; -D" + REQUIREMENT + "=required or " + REQUIREMENT_ENV
                    + "=required makes this a failure");
        }
        return Assumptions.abort(need);
    }

    private static boolean required() {
        String value = System.getProperty(REQUIREMENT, "");
        if (value.isEmpty()) {
            value = System.getenv().getOrDefault(REQUIREMENT_ENV, "");
        }
        return switch (value) {
            case "", "auto" -> false;
            case "required" -> true;
            default -> throw new IllegalArgumentException(REQUIREMENT + " must be auto or required, not: " + value);
        };
    }
}
