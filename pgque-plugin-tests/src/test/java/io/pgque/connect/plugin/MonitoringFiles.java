/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What deploy/prometheus and deploy/grafana say, read for the tests that check them: the alert
 * rules, the postgres_exporter queries and the metric names the dashboard and the rules use.
 */
final class MonitoringFiles {

    static final Path ALERTS = deploy("prometheus/pgque-alerts.yml");
    static final Path PROMETHEUS_RULE = deploy("prometheus/pgque-alerts-prometheusrule.yaml");
    static final Path EXPORTER_QUERIES = deploy("prometheus/pgque-postgres-exporter-queries.yml");
    static final Path JMX_RULES = deploy("prometheus/pgque-connect-jmx-exporter.yml");
    static final Path DASHBOARD = deploy("grafana/pgque-connect-dashboard.json");

    /** A metric name in a PromQL expression: the connectors' and Connect's, the engine's, postgres_exporter's own. */
    private static final Pattern METRIC = Pattern.compile("\\b(kafka_[a-z0-9_]+|pgque_[a-z0-9_]+|pg_up)\\b");

    private MonitoringFiles() {
    }

    static Path deploy(String file) {
        return Build.repoDir().resolve("deploy").resolve(file);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(Path file) {
        try (Reader in = Files.newBufferedReader(file)) {
            return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The rules of every group of the alert rules file. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> alertRules() {
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) yaml(ALERTS).get("groups")) {
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    /** The alert rules file with every rule's "for" set to {@code duration}: the same alerts, firing sooner. */
    @SuppressWarnings("unchecked")
    static String alertRulesWithFor(String duration) {
        Map<String, Object> file = yaml(ALERTS);
        for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                if (rule.containsKey("for")) {
                    rule.put("for", duration);
                }
            }
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options).dump(file);
    }

    /** The metric names the alert rules use. */
    static Set<String> alertMetrics() {
        Set<String> names = new TreeSet<>();
        for (Map<String, Object> rule : alertRules()) {
            names.addAll(metricsIn(String.valueOf(rule.get("expr"))));
        }
        return names;
    }

    /** The metric names the dashboard's queries use. */
    static Set<String> dashboardMetrics() {
        try {
            JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
            Set<String> names = new TreeSet<>();
            for (JsonNode panel : dashboard.path("panels")) {
                for (JsonNode target : panel.path("targets")) {
                    names.addAll(metricsIn(target.path("expr").asText()));
                }
            }
            for (JsonNode variable : dashboard.path("templating").path("list")) {
                names.addAll(metricsIn(variable.path("query").asText()));
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names among {@code names} a source makes: those starting with one of {@code prefixes}. */
    static Set<String> startingWith(Set<String> names, String... prefixes) {
        Set<String> some = new TreeSet<>();
        for (String name : names) {
            for (String prefix : prefixes) {
                if (name.startsWith(prefix)) {
                    some.add(name);
                }
            }
        }
        return some;
    }

    /** The postgres_exporter queries: entry name → (query text, metric column → usage). */
    @SuppressWarnings("unchecked")
    static Map<String, ExporterQuery> exporterQueries() {
        Map<String, ExporterQuery> queries = new LinkedHashMap<>();
        yaml(EXPORTER_QUERIES).forEach((namespace, value) -> {
            Map<String, Object> entry = (Map<String, Object>) value;
            Map<String, String> columns = new LinkedHashMap<>();
            for (Map<String, Object> metric : (List<Map<String, Object>>) entry.get("metrics")) {
                metric.forEach((column, spec) -> columns.put(column, String.valueOf(((Map<String, Object>) spec).get("usage"))));
            }
            queries.put(namespace, new ExporterQuery(String.valueOf(entry.get("query")), columns));
        });
        return queries;
    }

    /** One entry of the postgres_exporter queries file. */
    record ExporterQuery(String sql, Map<String, String> columns) {

        /** The metrics postgres_exporter makes of it: {@code <entry>_<column>} of every column but the labels. */
        Set<String> metrics(String namespace) {
            Set<String> names = new TreeSet<>();
            columns.forEach((column, usage) -> {
                if (!"LABEL".equals(usage)) {
                    names.add(namespace + "_" + column);
                }
            });
            return names;
        }
    }

    private static Set<String> metricsIn(String expr) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(expr);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
