/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The few calls of Connect's REST API the tests make, against one worker. */
public final class ConnectRest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final URI base;

    public ConnectRest(URI base) {
        this.base = base;
    }

    /** {@code PUT /connectors/<name>/config}: creates or updates a connector. */
    public void putConnector(String name, Map<String, String> config) {
        try {
            HttpResponse<String> response = send(HttpRequest.newBuilder(base.resolve("connectors/" + name + "/config"))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))));
            if (response.statusCode() != 200 && response.statusCode() != 201) {
                throw new IllegalStateException("PUT connector " + name + ": " + response.statusCode() + " " + response.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Task id to the worker that runs it, for the tasks that are RUNNING; empty while the
     * connector is unknown. A task in FAILED state fails the call with its trace.
     */
    public Map<Integer, String> runningTasks(String connector) {
        HttpResponse<String> response = send(HttpRequest.newBuilder(base.resolve("connectors/" + connector + "/status")).GET());
        Map<Integer, String> running = new LinkedHashMap<>();
        if (response.statusCode() != 200) {
            return running;
        }
        try {
            for (JsonNode task : JSON.readTree(response.body()).path("tasks")) {
                String state = task.path("state").asText();
                if ("FAILED".equals(state)) {
                    throw new AssertionError(connector + " task " + task.path("id").asInt() + " FAILED on "
                            + task.path("worker_id").asText() + ": " + task.path("trace").asText());
                }
                if ("RUNNING".equals(state)) {
                    running.put(task.path("id").asInt(), task.path("worker_id").asText());
                }
            }
            return running;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
