/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * One connector's plugin archive as the build made it: the zip, and what the tests need to know
 * about the connector it carries.
 *
 * @param kind           {@code sink} or {@code source}
 * @param artifactId     the module, and the name of the archive's top folder (with the version)
 * @param connectorClass the class the worker must find in the archive
 * @param zip            the archive file
 */
record PluginArchive(String kind, String artifactId, String connectorClass, Path zip) {

    static final PluginArchive SINK = of("sink", "io.pgque.connect.sink.PgQueSinkConnector");
    static final PluginArchive SOURCE = of("source", "io.pgque.connect.source.PgQueSourceConnector");

    static List<PluginArchive> both() {
        return List.of(SINK, SOURCE);
    }

    private static PluginArchive of(String kind, String connectorClass) {
        return new PluginArchive(kind, "pgque-" + kind + "-connector", connectorClass,
                Path.of(Build.required("pgque." + kind + ".archive")));
    }

    /** The folder the archive unpacks to: {@code <artifactId>-<version>}. */
    String topFolder() {
        return artifactId + "-" + Build.projectVersion();
    }

    /** The type Connect reports for the plugin in {@code GET /connector-plugins}. */
    String connectType() {
        return kind;
    }

    /**
     * Unzips the archive into {@code dir} (a plugin.path folder), the way an operator would;
     * returns the folder it created. Fails clearly when the build has not made the archive.
     */
    Path unpackInto(Path dir) {
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException("no plugin archive at " + zip + ": build the connectors first "
                    + "(./mvnw package -DskipTests from the repository root, or ./mvnw verify)");
        }
        try (InputStream file = Files.newInputStream(zip); ZipInputStream in = new ZipInputStream(file)) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                Path target = dir.resolve(entry.getName()).normalize();
                if (!target.startsWith(dir)) {
                    throw new IllegalStateException(zip + ": entry " + entry.getName() + " points outside the archive");
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack " + zip, e);
        }
        return dir.resolve(topFolder());
    }

    /** Top-level entries of the archive (files and folders), by name. */
    List<String> topLevelNames() {
        try (InputStream file = Files.newInputStream(zip); ZipInputStream in = new ZipInputStream(file)) {
            Set<String> names = new TreeSet<>();
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                String name = entry.getName();
                int slash = name.indexOf('/');
                names.add(slash < 0 ? name : name.substring(0, slash));
            }
            return List.copyOf(names);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + zip, e);
        }
    }

    /** The files under {@code folder}, at any depth, as paths relative to it, sorted. */
    static List<String> filesUnder(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile).map(p -> folder.relativize(p).toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** File names in {@code folder}, sorted; empty when the folder does not exist. */
    static List<String> fileNames(Path folder) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
