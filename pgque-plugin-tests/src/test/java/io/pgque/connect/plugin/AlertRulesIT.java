/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import io.pgque.connect.plugin.process.MonitoringTools;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The alert rules of deploy/prometheus, checked by Prometheus's own promtool: the rules file and
 * the PrometheusRule's spec are valid rule files, and promtool's unit tests
 * (src/test/resources/prometheus/pgque-alerts-test.yml) feed each alert series that make it fire
 * and series that must leave it quiet. The PrometheusRule holds exactly the rules file's rules,
 * so there is one set of rules in two wrappings.
 */
class AlertRulesIT {

    private static final String UNIT_TESTS = "/prometheus/pgque-alerts-test.yml";

    @TempDir
    Path dir;

    @Test
    void thePrometheusRuleHoldsExactlyTheRulesOfTheRulesFile() {
        Map<String, Object> resource = MonitoringFiles.yaml(MonitoringFiles.PROMETHEUS_RULE);
        assertEquals("monitoring.coreos.com/v1", resource.get("apiVersion"));
        assertEquals("PrometheusRule", resource.get("kind"));
        @SuppressWarnings("unchecked")
        Map<String, Object> labels = (Map<String, Object>) ((Map<String, Object>) resource.get("metadata")).get("labels");
        assertEquals(Map.of("role", "alert-rules", "app", "strimzi"), labels,
                "the labels Strimzi's example Prometheus selects rules by");
        assertEquals(MonitoringFiles.yaml(MonitoringFiles.ALERTS), resource.get("spec"),
                MonitoringFiles.PROMETHEUS_RULE + " and " + MonitoringFiles.ALERTS + " must hold the same rules");
    }

    @Test
    void everyAlertHasUnitTestsWhereItFiresAndWhereItStaysQuiet() throws IOException {
        Set<String> alerts = new TreeSet<>();
        MonitoringFiles.alertRules().forEach(rule -> alerts.add(String.valueOf(rule.get("alert"))));
        Set<String> firing = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (Map<String, Object> test : unitTests()) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> cases = (List<Map<String, Object>>) test.get("alert_rule_test");
            for (Map<String, Object> check : cases) {
                List<?> expected = (List<?>) check.get("exp_alerts");
                (expected == null || expected.isEmpty() ? quiet : firing).add(String.valueOf(check.get("alertname")));
            }
        }
        assertEquals(alerts, firing, "alerts with a case where they fire");
        assertEquals(alerts, quiet, "alerts with a case where they stay quiet");
    }

    @Test
    void promtoolAcceptsTheRulesFileAndThePrometheusRulesSpec() throws Exception {
        Path promtool = MonitoringTools.promtool();
        Path spec = dir.resolve("prometheusrule-spec.yml");
        Map<String, Object> resource = MonitoringFiles.yaml(MonitoringFiles.PROMETHEUS_RULE);
        Files.writeString(spec, new org.yaml.snakeyaml.Yaml().dump(resource.get("spec")));
        for (Path file : List.of(MonitoringFiles.ALERTS, spec)) {
            String out = run(List.of(promtool.toString(), "check", "rules", file.toString()));
            assertTrue(out.contains("SUCCESS: " + MonitoringFiles.alertRules().size() + " rules found"), out);
        }
    }

    @Test
    void promtoolsUnitTestsPass() throws Exception {
        Path promtool = MonitoringTools.promtool();
        Files.copy(MonitoringFiles.ALERTS, dir.resolve(MonitoringFiles.ALERTS.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        try (InputStream tests = AlertRulesIT.class.getResourceAsStream(UNIT_TESTS)) {
            assertNotNull(tests, UNIT_TESTS);
            Files.copy(tests, dir.resolve("pgque-alerts-test.yml"));
        }
        String out = run(List.of(promtool.toString(), "test", "rules", "pgque-alerts-test.yml"));
        assertTrue(out.contains("SUCCESS"), out);
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> unitTests() throws IOException {
        try (InputStream in = AlertRulesIT.class.getResourceAsStream(UNIT_TESTS)) {
            assertNotNull(in, UNIT_TESTS);
            Path copy = dir.resolve("unit-tests.yml");
            Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            Map<String, Object> file = MonitoringFiles.yaml(copy);
            assertEquals(List.of("pgque-alerts.yml"), file.get("rule_files"));
            return new ArrayList<>((List<Map<String, Object>>) file.get("tests"));
        }
    }

    /** Runs {@code command} in the test's folder; its output, which must come with exit code 0. */
    private String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "still running: " + command);
        String out = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), command + " failed:\n" + out);
        return out;
    }
}
