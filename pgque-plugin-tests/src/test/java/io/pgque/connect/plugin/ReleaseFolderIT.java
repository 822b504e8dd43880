/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a release publishes (docs/release.md), as pgque-distribution lays it out: both plugin
 * archives as the build made them, their SBOMs, the engine script, a sha512 file for each that
 * sha512sum -c accepts, and deploy/ with the archives' checksums in the Strimzi resource.
 */
class ReleaseFolderIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static Path release;
    private static Path unpacked;

    @BeforeAll
    static void unpack() throws IOException {
        release = Build.releaseDir();
        unpacked = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "release-");
        for (PluginArchive archive : PluginArchive.both()) {
            archive.unpackInto(unpacked);
        }
    }

    static List<PluginArchive> archives() {
        return PluginArchive.both();
    }

    private static List<String> published() {
        List<String> files = new ArrayList<>();
        for (PluginArchive archive : PluginArchive.both()) {
            files.add(archive.zip().getFileName().toString());
            files.add(archive.artifactId() + "-" + Build.projectVersion() + ".cdx.json");
        }
        files.add("pgque.sql");
        return files;
    }

    @Test
    void theFolderHoldsTheArchivesSbomsEngineScriptAndDeploymentFilesEachWithItsChecksum() {
        Set<String> expected = new TreeSet<>(List.of("deploy"));
        for (String file : published()) {
            expected.add(file);
            expected.add(file + ".sha512");
        }
        assertEquals(expected, new TreeSet<>(PluginArchive.fileNames(release)), "the release folder " + release);
        assertTrue(release.getFileName().toString().endsWith("-" + Build.projectVersion()), release.toString());
    }

    /** Each line reads as sha512sum writes it, "<hex>  <name>", and names its file's digest. */
    @Test
    void eachChecksumFileIsTheDigestOfItsFileInSha512sumsFormat() throws IOException {
        for (String file : published()) {
            String line = Files.readString(release.resolve(file + ".sha512")).strip();
            assertEquals(Sha512.of(release.resolve(file)) + "  " + file, line, file + ".sha512");
        }
    }

    @ParameterizedTest
    @MethodSource("archives")
    void thePublishedArchiveIsTheOneTheTestsRan(PluginArchive archive) throws IOException {
        assertArrayEquals(Files.readAllBytes(archive.zip()), Files.readAllBytes(release.resolve(archive.zip().getFileName())),
                "the release folder's copy of " + archive.zip());
    }

    /**
     * The SBOM names the connector and every jar of the archive's lib/ (with a package URL and a
     * licence); the one component it has beyond them is slf4j-api, which the worker provides.
     */
    @ParameterizedTest
    @MethodSource("archives")
    void theSbomListsEveryJarTheArchiveBundles(PluginArchive archive) throws IOException {
        Path sbom = release.resolve(archive.artifactId() + "-" + Build.projectVersion() + ".cdx.json");
        assertTrue(Files.isRegularFile(sbom), sbom + " is missing: cyclonedx-maven-plugin makes no SBOM in an offline build "
                + "(mvn -o); build without -o");
        JsonNode bom = JSON.readTree(sbom.toFile());
        assertEquals("CycloneDX", bom.path("bomFormat").asText());
        assertEquals(archive.artifactId(), bom.path("metadata").path("component").path("name").asText());
        assertEquals(Build.projectVersion(), bom.path("metadata").path("component").path("version").asText());
        Set<String> components = new TreeSet<>();
        for (JsonNode component : bom.path("components")) {
            assertTrue(component.path("purl").asText().startsWith("pkg:maven/"), "a package URL: " + component);
            assertFalse(component.path("licenses").isEmpty(), "a licence: " + component);
            components.add(component.path("name").asText() + "-" + component.path("version").asText() + ".jar");
        }
        Set<String> lib = new TreeSet<>(PluginArchive.fileNames(unpacked.resolve(archive.topFolder()).resolve("lib")));
        lib.remove(archive.artifactId() + "-" + Build.projectVersion() + ".jar"); // the SBOM's own subject
        Set<String> beyond = new TreeSet<>(components);
        beyond.removeAll(lib);
        assertTrue(components.containsAll(lib), "lib/ jars missing from the SBOM: " + missing(lib, components));
        assertEquals(1, beyond.size(), "components beyond lib/: " + beyond);
        assertTrue(beyond.iterator().next().startsWith("slf4j-api-"), "the one the worker provides: " + beyond);
    }

    @Test
    void theEngineScriptIsTheOneTheArchivesCarry() throws IOException {
        Path jar = unpacked.resolve(PluginArchive.SINK.topFolder()).resolve("lib/pgque-client-" + Build.projectVersion() + ".jar");
        try (JarFile file = new JarFile(jar.toFile())) {
            byte[] bundled = file.getInputStream(file.getJarEntry("io/pgque/client/pgque.sql")).readAllBytes();
            assertArrayEquals(bundled, Files.readAllBytes(release.resolve("pgque.sql")));
        }
    }

    /** deploy/ is the archives' deploy/, the two checksums filled in: nothing is left to fill but the CHANGE lines. */
    @Test
    void deployIsTheArchivesWithTheChecksumsFilledIn() throws IOException {
        Path archived = unpacked.resolve(PluginArchive.SINK.topFolder()).resolve("deploy");
        Path deploy = release.resolve("deploy");
        List<String> files = PluginArchive.filesUnder(archived);
        assertEquals(files, PluginArchive.filesUnder(deploy));
        for (String file : files) {
            String expected = Files.readString(archived.resolve(file))
                    .replace("@SINK_SHA512@", Sha512.of(PluginArchive.SINK.zip()))
                    .replace("@SOURCE_SHA512@", Sha512.of(PluginArchive.SOURCE.zip()));
            String actual = Files.readString(deploy.resolve(file));
            assertEquals(expected, actual, "deploy/" + file);
            assertFalse(actual.matches("(?s).*@[A-Z0-9_]+@.*"), "a placeholder left in deploy/" + file);
        }
    }

    private static Set<String> missing(Set<String> wanted, Set<String> present) {
        Set<String> missing = new TreeSet<>(wanted);
        missing.removeAll(present);
        return missing;
    }
}
