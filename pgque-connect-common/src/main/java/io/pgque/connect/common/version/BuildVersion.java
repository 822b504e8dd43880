/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.version;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * Reads the version a module's build wrote into a properties resource, so that a connector's
 * {@code version()} reports the artifact it ships in rather than a number typed into the code.
 */
public final class BuildVersion {

    private BuildVersion() {
    }

    /**
     * {@link #read} on first use rather than at class load: how both connectors read their
     * version, so a packaging mistake shows up as an error from {@code version()} instead of
     * breaking the worker's plugin scan.
     */
    public static Supplier<String> lazily(Class<?> anchor, String resource) {
        return new Supplier<>() {
            private volatile String version;

            @Override
            public String get() {
                String v = version;
                if (v == null) {
                    v = read(anchor, resource);
                    version = v;
                }
                return v;
            }
        };
    }

    /**
     * The {@code version} property of {@code resource}, loaded next to {@code anchor}.
     *
     * @throws IllegalStateException when the resource or the property is missing, or the build
     *         did not filter it; a wrong version would mislead whoever reads it
     */
    public static String read(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Build version resource " + resource + " not found next to "
                        + anchor.getName());
            }
            Properties properties = new Properties();
            properties.load(in);
            String version = properties.getProperty("version", "").trim();
            if (version.isEmpty() || version.startsWith("${")) {
                throw new IllegalStateException("Build version resource " + resource + " has no filtered version");
            }
            return version;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read build version resource " + resource, e);
        }
    }
}
