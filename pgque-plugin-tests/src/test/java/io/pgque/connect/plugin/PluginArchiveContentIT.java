/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each plugin archive holds, file by file: the layout, the manifest, a lib/ that is complete
 * and carries nothing the worker provides, the licence files, the sample configs. The worker test
 * ({@link PluginPathIT}) shows the archives run; this one says what is wrong when one does not.
 */
class PluginArchiveContentIT {

    /** groupId:artifactId:version, then the licence, then where to read it. */
    private static final Pattern THIRD_PARTY_LINE = Pattern.compile("^([\\w.-]+):([\\w.-]+):([\\w.-]+)\\s+(\\S+)\\s+(\\S+)$");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path unpacked;

    @BeforeAll
    static void unpack() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        unpacked = Files.createTempDirectory(tmp, "archive-contents-");
        for (PluginArchive archive : PluginArchive.both()) {
            archive.unpackInto(unpacked);
        }
    }

    static List<PluginArchive> archives() {
        return PluginArchive.both();
    }

    private static Path root(PluginArchive archive) {
        return unpacked.resolve(archive.topFolder());
    }

    @ParameterizedTest
    @MethodSource("archives")
    void everythingSitsInOneFolderNamedForNameAndVersion(PluginArchive archive) {
        assertEquals(List.of(archive.topFolder()), archive.topLevelNames(), archive.zip() + " top level");
        List<String> layout = hasSampleConfigs(archive)
                ? List.of("doc", "etc", "lib", "manifest.json")
                : List.of("doc", "lib", "manifest.json");
        assertEquals(layout, PluginArchive.fileNames(root(archive)), "the component layout of " + archive.zip());
    }

    @ParameterizedTest
    @MethodSource("archives")
    void manifestDescribesTheConnectorAndItsRequirements(PluginArchive archive) throws IOException {
        Path file = root(archive).resolve("manifest.json");
        String text = Files.readString(file);
        assertFalse(text.contains("${"), "every placeholder filled in: " + text);
        JsonNode manifest = JSON.readTree(text);

        assertEquals(archive.artifactId(), manifest.path("name").asText());
        assertEquals(Build.projectVersion(), manifest.path("version").asText());
        assertEquals(List.of(archive.kind()), strings(manifest.path("component_types")));
        for (String field : List.of("title", "description")) {
            assertFalse(manifest.path(field).asText().isBlank(), field);
        }
        assertFalse(manifest.path("owner").path("username").asText().isBlank(), "owner.username");
        assertFalse(manifest.path("owner").path("name").asText().isBlank(), "owner.name");
        assertEquals("Apache License 2.0", manifest.path("license").path(0).path("name").asText());

        List<String> requirements = strings(manifest.path("requirements"));
        assertTrue(requirements.stream().anyMatch(r -> r.contains("Kafka Connect") && r.contains(Build.kafkaVersion())),
                "names the Kafka Connect version it was built against: " + requirements);
        assertTrue(requirements.stream().anyMatch(r -> r.contains("Kafka Connect 3.6 or newer")),
                "names the oldest Connect it supports (ConnectVersionsIT proves it): " + requirements);
        assertTrue(requirements.stream().anyMatch(r -> r.contains("PostgreSQL 14")), "names PostgreSQL: " + requirements);
        String role = archive.kind().equals("sink") ? "pgque_writer" : "pgque_reader";
        assertTrue(requirements.stream().anyMatch(r -> r.contains(role)), "names the role " + role + ": " + requirements);
    }

    @ParameterizedTest
    @MethodSource("archives")
    void libHoldsTheConnectorAndExactlyTheListedThirdPartyJars(PluginArchive archive) throws IOException {
        String version = Build.projectVersion();
        Set<String> expected = new TreeSet<>(List.of(
                archive.artifactId() + "-" + version + ".jar",
                "pgque-connect-common-" + version + ".jar",
                "pgque-client-" + version + ".jar"));
        expected.addAll(thirdPartyJars(root(archive).resolve("doc/THIRD-PARTY.txt")));

        List<String> lib = PluginArchive.fileNames(root(archive).resolve("lib"));
        for (String jar : lib) {
            assertFalse(jar.startsWith("kafka") || jar.startsWith("connect-") || jar.startsWith("slf4j"),
                    jar + " is the worker's to provide; a plugin must not bundle it");
        }
        assertEquals(expected, new TreeSet<>(lib),
                "lib/ against the connector's own jars plus doc/THIRD-PARTY.txt (update the list in "
                        + "src/assembly/doc/THIRD-PARTY.txt when a dependency changes)");
    }

    @ParameterizedTest
    @MethodSource("archives")
    void connectorJarDeclaresItsConnectorForServiceLoading(PluginArchive archive) throws IOException {
        Path jar = root(archive).resolve("lib/" + archive.artifactId() + "-" + Build.projectVersion() + ".jar");
        String type = archive.kind().equals("sink") ? "sink.SinkConnector" : "source.SourceConnector";
        try (JarFile file = new JarFile(jar.toFile())) {
            JarEntry services = file.getJarEntry("META-INF/services/org.apache.kafka.connect." + type);
            assertNotNull(services, jar + " has no ServiceLoader manifest, so plugin.discovery=service_load misses it");
            String listed = new String(file.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(listed.lines().map(String::trim).anyMatch(archive.connectorClass()::equals), listed);
            assertNotNull(file.getJarEntry(archive.connectorClass().replace('.', '/') + ".class"));
        }
    }

    @ParameterizedTest
    @MethodSource("archives")
    void noClassIsInTwoJars(PluginArchive archive) throws IOException {
        Map<String, String> owner = new HashMap<>();
        List<String> clashes = new ArrayList<>();
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(root(archive).resolve("lib"), "*.jar")) {
            for (Path jar : jars) {
                try (JarFile file = new JarFile(jar.toFile())) {
                    for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                        String name = entries.nextElement().getName();
                        if (name.endsWith(".class") && !name.startsWith("META-INF/") && !name.endsWith("module-info.class")) {
                            String first = owner.putIfAbsent(name, jar.getFileName().toString());
                            if (first != null) {
                                clashes.add(name + " in " + first + " and " + jar.getFileName());
                            }
                        }
                    }
                }
            }
        }
        assertTrue(clashes.isEmpty(), "classes bundled twice: " + clashes);
    }

    @ParameterizedTest
    @MethodSource("archives")
    void theEngineScriptShipsInTheClientJar(PluginArchive archive) throws IOException {
        Path jar = root(archive).resolve("lib/pgque-client-" + Build.projectVersion() + ".jar");
        try (JarFile file = new JarFile(jar.toFile())) {
            JarEntry script = file.getJarEntry("io/pgque/client/pgque.sql");
            assertNotNull(script, "the manifest points operators at io/pgque/client/pgque.sql in " + jar.getFileName());
            assertTrue(script.getSize() > 10_000, "the assembled script, not a stub: " + script.getSize() + " bytes");
        }
    }

    @ParameterizedTest
    @MethodSource("archives")
    void docHoldsTheLicencesAndTheGuidesAsTheRepoHasThem(PluginArchive archive) throws IOException {
        Path doc = root(archive).resolve("doc");
        String licence = Files.readString(doc.resolve("LICENSE"));
        assertTrue(licence.contains("Apache License, Version 2.0"), licence);
        assertFalse(thirdPartyJars(doc.resolve("THIRD-PARTY.txt")).isEmpty());

        List<String> guides = new ArrayList<>(PluginArchive.fileNames(doc));
        guides.removeAll(List.of("LICENSE", "THIRD-PARTY.txt"));
        assertTrue(guides.containsAll(List.of("README.md", "operations.md")), "the connector's guide and operations: " + guides);
        for (String guide : guides) {
            assertCopyOfARepoFile(doc.resolve(guide), guideSources(archive, guide));
        }
    }

    /** Where doc/{@code name} may come from: the module, docs/, and for the README the connector's guide in docs/. */
    private static List<Path> guideSources(PluginArchive archive, String name) {
        Path repo = Build.repoDir();
        List<Path> sources = new ArrayList<>(List.of(repo.resolve(archive.artifactId()).resolve(name), repo.resolve("docs").resolve(name)));
        if (name.equals("README.md")) {
            sources.add(repo.resolve("docs").resolve(archive.kind() + ".md"));
        }
        return sources;
    }

    private static void assertCopyOfARepoFile(Path copy, List<Path> sources) throws IOException {
        String content = Files.readString(copy);
        for (Path source : sources) {
            if (Files.isRegularFile(source) && Files.readString(source).equals(content)) {
                return;
            }
        }
        throw new AssertionError(copy + " is a copy of none of " + sources);
    }

    @ParameterizedTest
    @MethodSource("archives")
    void etcHoldsThisConnectorsSampleConfigsAsTheyAre(PluginArchive archive) throws IOException {
        List<Path> samples = sampleConfigs(archive);
        List<String> expected = samples.stream().map(p -> p.getFileName().toString()).sorted().toList();
        assertEquals(expected, PluginArchive.fileNames(root(archive).resolve("etc")),
                "etc/ against config/pgque-" + archive.kind() + ".* in the repository");
        for (Path sample : samples) {
            assertSameFile(sample, root(archive).resolve("etc").resolve(sample.getFileName()));
        }
    }

    private static boolean hasSampleConfigs(PluginArchive archive) {
        return !sampleConfigs(archive).isEmpty();
    }

    private static List<Path> sampleConfigs(PluginArchive archive) {
        Path config = Build.repoDir().resolve("config");
        List<Path> samples = new ArrayList<>();
        if (Files.isDirectory(config)) {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(config, "pgque-" + archive.kind() + ".*")) {
                files.forEach(samples::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return samples;
    }

    /** The jar file names THIRD-PARTY.txt lists, each line checked for a licence. */
    private static Set<String> thirdPartyJars(Path list) throws IOException {
        Set<String> jars = new TreeSet<>();
        for (String line : Files.readAllLines(list)) {
            Matcher m = THIRD_PARTY_LINE.matcher(line.trim());
            if (m.matches()) {
                assertTrue(m.group(5).startsWith("https://"), "a licence link: " + line);
                jars.add(m.group(2) + "-" + m.group(3) + ".jar");
            }
        }
        return jars;
    }

    private static void assertSameFile(Path expected, Path actual) throws IOException {
        assertTrue(Files.isRegularFile(actual), actual + " is missing (expected a copy of " + expected + ")");
        assertEquals(Files.readString(expected), Files.readString(actual), actual + " differs from " + expected);
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }
}
