/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.quickstart.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The few calls of Connect's REST API the quickstart makes: the same ones a user makes with curl.
 */
public final class ConnectRestClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public ConnectRestClient(URI base) {
        this.base = base;
    }

    /** Thrown for a response the quickstart cannot use; carries Connect's error message. */
    public static final class RestException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        RestException(int status, String message) {
            super(message);
            this.status = status;
        }

        /** Connect answers 409 while the worker's group rebalances, 5xx while it is busy starting. */
        boolean worthRetrying() {
            return status == 409 || status >= 500;
        }
    }

    /**
     * Waits until the worker has joined its group and read its config topic: before that, writes
     * are refused or time out.
     */
    public void awaitReady(Duration timeout) throws TimeoutException {
        Await.condition("the Connect worker at " + base + " to join its group", timeout,
                () -> send(get("connectors")).statusCode() == 200);
    }

    /** Class names of the connector plugins the worker found. */
    public Set<String> connectorPlugins() {
        JsonNode plugins = json(expectOk(send(get("connector-plugins"))));
        Set<String> classes = new HashSet<>();
        plugins.forEach(p -> classes.add(p.path("class").asText()));
        return classes;
    }

    /**
     * Creates the connector, or updates its config if it exists ({@code PUT .../config} does both).
     * Retried while the worker is rebalancing.
     */
    public void deploy(ConnectorDefinition connector, Duration timeout) throws TimeoutException {
        HttpRequest put = request("connectors/" + encode(connector.name()) + "/config")
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(write(connector.config())))
                .build();
        Await.until("connector " + connector.name() + " to be accepted", timeout, () -> {
            try {
                expectOk(send(put));
                return Optional.of(Boolean.TRUE);
            } catch (RestException e) {
                if (e.worthRetrying()) {
                    return Optional.empty();
                }
                throw new IllegalStateException("the worker refused connector " + connector.name() + ": " + e.getMessage(), e);
            }
        });
    }

    /** The connector's status, or empty when the worker has no status for it yet. */
    public Optional<ConnectorStatus> status(String name) {
        HttpResponse<String> response = send(get("connectors/" + encode(name) + "/status"));
        if (response.statusCode() == 404) {
            return Optional.empty();
        }
        JsonNode root = json(expectOk(response));
        List<ConnectorStatus.Task> tasks = new ArrayList<>();
        for (JsonNode t : root.path("tasks")) {
            tasks.add(new ConnectorStatus.Task(t.path("id").asInt(), t.path("state").asText(), text(t.path("trace"))));
        }
        JsonNode connector = root.path("connector");
        return Optional.of(new ConnectorStatus(name, connector.path("state").asText(), text(connector.path("trace")), tasks));
    }

    /**
     * Waits until the connector and {@code expectedTasks} tasks run; fails at once, with the
     * reason, if the connector or a task fails instead.
     */
    public ConnectorStatus awaitRunning(String name, int expectedTasks, Duration timeout) throws TimeoutException {
        return Await.until("connector " + name + " and " + expectedTasks + " task(s) to run", timeout, () -> {
            Optional<ConnectorStatus> status;
            try {
                status = status(name);
            } catch (RestException e) {
                if (e.worthRetrying()) {
                    return Optional.empty();
                }
                throw e;
            }
            status.flatMap(ConnectorStatus::failure).ifPresent(f -> {
                throw new ConnectorFailedException(f);
            });
            return status.filter(s -> s.running(expectedTasks));
        });
    }

    /** A connector or task reported FAILED; waiting longer will not help. */
    public static final class ConnectorFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ConnectorFailedException(String message) {
            super(message);
        }
    }

    private HttpRequest get(String path) {
        return request(path).GET().build();
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT).header("Accept", "application/json");
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + request.method() + " " + request.uri(), e);
        }
    }

    private static String expectOk(HttpResponse<String> response) {
        int status = response.statusCode();
        if (status / 100 == 2) {
            return response.body();
        }
        String message = response.body();
        try {
            message = JSON.readTree(response.body()).path("message").asText(response.body());
        } catch (IOException notJson) {
            // keep the raw body as the message
        }
        throw new RestException(status, response.request().method() + " " + response.request().uri()
                + " answered " + status + ": " + message);
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException("Connect answered with something that is not JSON", e);
        }
    }

    private static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(JsonNode node) {
        return node.isMissingNode() || node.isNull() ? null : node.asText();
    }

    private static String encode(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
