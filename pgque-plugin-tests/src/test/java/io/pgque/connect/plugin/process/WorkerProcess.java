/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Kafka Connect worker in its own JVM, started the way {@code bin/connect-distributed.sh}
 * starts one: {@code org.apache.kafka.connect.cli.ConnectDistributed <worker file>}. Its output
 * goes to a log file next to the worker file, for the post-mortem. Only a separate process can be
 * killed for real: an in-process worker can only be stopped, which leaves its group cleanly.
 */
public final class WorkerProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    private final int port;
    private final Path log;
    private final Process process;

    private WorkerProcess(String name, int port, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts a worker on {@code workerFile} (which must make it listen on 127.0.0.1:{@code port})
     * with {@code classpath}: Connect's runtime and its dependencies, and no connector, so that
     * the worker finds the connectors in its plugin.path only.
     */
    public static WorkerProcess start(String name, Path workerFile, int port, String classpath) {
        return start(name, workerFile, port, classpath, List.of());
    }

    /** As {@link #start(String, Path, int, String)}, with more JVM options (e.g. a logging configuration). */
    public static WorkerProcess start(String name, Path workerFile, int port, String classpath, List<String> jvmOptions) {
        Path log = workerFile.resolveSibling(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms64m");
        command.add("-Xmx384m");
        command.addAll(jvmOptions);
        // slf4j-simple is the binding on this classpath; INFO shows the rebalances and task moves.
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
        command.add("-Djava.io.tmpdir=" + workerFile.getParent());
        command.add("-cp");
        command.add(classpath);
        command.add("org.apache.kafka.connect.cli.ConnectDistributed");
        command.add(workerFile.toString());
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            return new WorkerProcess(name, port, log, process);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start worker " + name, e);
        }
    }

    /**
     * The test JVM's class path for a worker: it holds connect-runtime and its dependencies, and
     * (this module depends on the connectors' zips only) no connector class. Needs the whole path
     * in java.class.path, which failsafe gives with useManifestOnlyJar=false.
     */
    public static String classpathOfThisJvm() {
        String classpath = System.getProperty("java.class.path");
        boolean hasRuntime = false;
        for (String entry : classpath.split(File.pathSeparator)) {
            hasRuntime |= Path.of(entry).getFileName().toString().startsWith("connect-runtime-");
        }
        if (!hasRuntime) {
            throw new IllegalStateException("no connect-runtime jar in java.class.path (" + classpath
                    + "); run through failsafe with useManifestOnlyJar=false");
        }
        return classpath;
    }

    /** A port free at the moment of asking, for a worker's REST listener. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return name;
    }

    /** The worker id Connect reports in connector and task status: {@code host:port} of its REST API. */
    public String workerId() {
        return "127.0.0.1:" + port;
    }

    public URI rest() {
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    public Path log() {
        return log;
    }

    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /**
     * True once the worker has joined its cluster and read the config topic: {@code GET /health}
     * (KIP-1017, Kafka 3.9) answers 200 only then. An older worker, which has no such endpoint,
     * is taken as ready when it lists its connectors, which it does only once it has joined.
     */
    public boolean ready() {
        if (!process.isAlive()) {
            throw new IllegalStateException("worker " + name + " exited with " + process.exitValue() + "; see " + log);
        }
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(rest().resolve("health"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 404) {
                response = HTTP.send(HttpRequest.newBuilder(rest().resolve("connectors"))
                        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            }
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * SIGKILL: {@link Process#destroyForcibly()} sends SIGKILL on Linux and macOS. The worker gets
     * no chance to leave its groups, commit offsets or release leases, as in a crash or an OOM kill.
     */
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("worker " + name + " (pid " + pid() + ") still runs 30 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the worker if it still runs: nothing the test started may outlive it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", " + workerId() + ")";
    }
}
