/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A local port that stays the same across runs on one data directory, as long as it is free.
 *
 * <p>Why: connector configs stored in Kafka carry the database URL, and users keep the broker's
 * address in their shell history; a port that moved on every restart would make the restarted
 * connectors fail until they are reconfigured, and the user's commands stale.
 */
public final class RememberedPort {

    private RememberedPort() {
    }

    /** The port recorded in {@code file} if it is still free, else a new free port, recorded. */
    public static int in(Path file) {
        try {
            if (Files.exists(file)) {
                int remembered = Integer.parseInt(Files.readString(file, StandardCharsets.UTF_8).trim());
                if (isFree(remembered)) {
                    return remembered;
                }
            }
            int port = anyFree();
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, Integer.toString(port), StandardCharsets.UTF_8);
            return port;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot keep a port in " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + " should hold a port number", e);
        }
    }

    /** The port recorded in {@code file}, if there is one; never records one. */
    public static Optional<Integer> recorded(Path file) {
        try {
            return Files.exists(file)
                    ? Optional.of(Integer.parseInt(Files.readString(file, StandardCharsets.UTF_8).trim()))
                    : Optional.empty();
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** A port nobody listens on right now on the loopback interface. */
    public static int anyFree() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port", e);
        }
    }

    static boolean isFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
