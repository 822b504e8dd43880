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
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What each plugin archive holds, file by file: the layout, the manifest, a lib/ that is complete
 * and carries nothing the worker provides, the licence files, every guide with links that stay
 * inside the archive, the sample configs, the deployment files. The worker test
 * ({@link PluginPathIT}) shows the archives run; this one says what is wrong when one does not.
 */
class PluginArchiveContentIT {

    /** groupId:artifactId:version, then the licence, then where to read it. */
    private static final Pattern THIRD_PARTY_LINE = Pattern.compile("^([\\w.-]+):([\\w.-]+):([\\w.-]+)\\s+(\\S+)\\s+(\\S+)$");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The target of a Markdown link or image: {@code [text](target)}. */
    private static final Pattern MARKDOWN_LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
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
                ? List.of("deploy", "doc", "etc", "lib", "manifest.json")
                : List.of("deploy", "doc", "lib", "manifest.json");
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
    void docHoldsTheLicencesAndEveryGuide(PluginArchive archive) throws IOException {
        Path doc = root(archive).resolve("doc");
        String licence = Files.readString(doc.resolve("LICENSE"));
        assertTrue(licence.contains("Apache License, Version 2.0"), licence);
        assertFalse(thirdPartyJars(doc.resolve("THIRD-PARTY.txt")).isEmpty());

        Set<String> expected = new TreeSet<>(List.of("LICENSE", "THIRD-PARTY.txt", "README.md", "config-reference.md"));
        expected.addAll(PluginArchive.fileNames(Build.repoDir().resolve("docs")));
        assertEquals(expected, new TreeSet<>(PluginArchive.fileNames(doc)), "doc/: every guide of docs/, the connector's as README.md");
        Path guide = archive.kind().equals("sink") ? Build.repoDir().resolve("docs/sink.md")
                : Build.repoDir().resolve("pgque-source-connector/README.md");
        assertEquals(linksInsideTheArchive(Files.readString(guide)), Files.readString(doc.resolve("README.md")),
                "doc/README.md is " + guide + ", its links pointing into the archive");
        for (String name : PluginArchive.fileNames(Build.repoDir().resolve("docs"))) {
            if (name.endsWith(".md")) {
                assertEquals(linksInsideTheArchive(Files.readString(Build.repoDir().resolve("docs").resolve(name))),
                        Files.readString(doc.resolve(name)), "doc/" + name + " is the repository's, its links pointing into the archive");
            }
        }
    }

    /**
     * What the build changes in a guide it puts into doc/: links to the repository's docs/ and
     * module folders point beside the guide, links to its config/ point to the archive's etc/.
     */
    private static String linksInsideTheArchive(String guide) {
        return guide.replaceAll("\\]\\(\\.\\./(docs|pgque-source-connector)/", "](")
                .replaceAll("\\]\\(\\.\\./config([/)])", "](../etc$1");
    }

    /** A reader of the unzipped archive can follow every link of its guides: none leads outside it. */
    @ParameterizedTest
    @MethodSource("archives")
    void everyRelativeLinkOfTheGuidesLeadsToAFileOfTheArchive(PluginArchive archive) throws IOException {
        Path top = root(archive);
        List<String> broken = new ArrayList<>();
        int links = 0;
        try (Stream<Path> files = Files.walk(top)) {
            for (Path md : files.filter(p -> p.toString().endsWith(".md")).toList()) {
                Matcher link = MARKDOWN_LINK.matcher(Files.readString(md));
                while (link.find()) {
                    String target = link.group(1).replaceAll("#.*$", "");
                    if (target.isEmpty() || target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                        continue; // an anchor on the same page, or an absolute link
                    }
                    links++;
                    Path resolved = md.getParent().resolve(target).normalize();
                    if (!resolved.startsWith(top) || !Files.exists(resolved)) {
                        broken.add(top.relativize(md) + " -> " + link.group(1));
                    }
                }
            }
        }
        assertTrue(links > 20, "the guides link to each other: " + links + " relative links found");
        assertEquals(List.of(), broken, "links of " + archive.zip() + " that lead to no file of the archive");
    }

    /** deploy/ is the repository's, the version filled in; the checksums are the release folder's to fill in. */
    @ParameterizedTest
    @MethodSource("archives")
    void deployHoldsTheRepositorysDeploymentFiles(PluginArchive archive) throws IOException {
        Path repo = Build.repoDir().resolve("deploy");
        Path deploy = root(archive).resolve("deploy");
        List<String> files = PluginArchive.filesUnder(repo);
        assertEquals(files, PluginArchive.filesUnder(deploy), "deploy/ against the repository's");
        for (String file : files) {
            String expected = Files.readString(repo.resolve(file)).replace("@VERSION@", Build.projectVersion());
            assertEquals(expected, Files.readString(deploy.resolve(file)), "deploy/" + file);
        }
        assertTrue(Files.readString(deploy.resolve("strimzi/kafka-connect.yaml"))
                .contains(archive.artifactId() + "-" + Build.projectVersion() + "-plugin.zip"), "the archive's URL names its version");
    }

    @ParameterizedTest
    @MethodSource("archives")
    void etcHoldsTheSampleConfigsAsTheyAre(PluginArchive archive) throws IOException {
        List<Path> samples = sampleConfigs(archive);
        List<String> expected = samples.stream().map(p -> p.getFileName().toString()).sorted().toList();
        assertEquals(expected, PluginArchive.fileNames(root(archive).resolve("etc")),
                "etc/ against config/pgque-* in the repository (both connectors' samples: the guides link to both)");
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
            try (DirectoryStream<Path> files = Files.newDirectoryStream(config, "pgque-*")) {
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
