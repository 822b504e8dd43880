/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin.process;

import io.pgque.testsupport.Await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A program of the monitoring stack (Prometheus, postgres_exporter) run by a test: its own
 * process, listening on 127.0.0.1:{@link #port()}, its output in a log file for the post-mortem,
 * stopped (and killed, if it will not stop) when the test is done.
 */
public final class ServerProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    private final int port;
    private final Path log;
    private final Process process;

    private ServerProcess(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts {@code command} with {@code environment} added to this JVM's, its output to
     * {@code <dir>/<name>.log}, and waits until {@code readyPath} answers 200 on {@code port}.
     */
    public static ServerProcess start(String name, Path dir, int port, List<String> command, Map<String, String> environment,
            String readyPath) {
        Path log = dir.resolve(name + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        ServerProcess server;
        try {
            server = new ServerProcess(name, port, log, builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
        Await.until(() -> name + " did not answer on " + server.uri(readyPath) + "; its log:\n" + server.logText(),
                Duration.ofSeconds(60), Duration.ofMillis(100), () -> server.answers(readyPath));
        return server;
    }

    public int port() {
        return port;
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Whether GET {@code path} answers 200 (false while nothing listens yet). */
    public boolean answers(String path) {
        try {
            return send(path).statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** The body of GET {@code path}, which must answer 200. */
    public String get(String path) {
        try {
            HttpResponse<String> response = send(path);
            if (response.statusCode() != 200) {
                throw new IllegalStateException(name + " answered " + response.statusCode() + " to " + path + ": "
                        + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(name + " did not answer " + path, e);
        }
    }

    private HttpResponse<String> send(String path) throws IOException {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with " + process.exitValue() + "; its log:\n" + logText());
        }
        try {
            return HTTP.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public String logText() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
