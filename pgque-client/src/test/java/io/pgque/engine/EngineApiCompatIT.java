/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * What makes an older connector work on a newer engine (docs/production.md, "Compatibility"): a
 * connector only calls the engine's API, so every function an older released engine granted to
 * the four roles is still there in this one, with the same argument types, the same result type
 * and the same roles allowed to call it. Checked against every released script kept under
 * src/test/resources from {@link #OLDEST_KEPT} on, each installed into a database of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EngineApiCompatIT {

    /** The oldest engine whose API this one keeps; 0.4.0's trust model took rights away from 0.3.x's roles. */
    static final String OLDEST_KEPT = "0.4.0";

    private static final Pattern RELEASED = Pattern.compile("pgque-(\\d+\\.\\d+\\.\\d+)\\.sql");
    /**
     * PgQue's functions whose result an older engine of ours shaped otherwise, brought to PgQue's
     * shape (ENGINE.md decision 2): no connector or client of this project calls them, and the
     * upgrade notes in docs/operations.md name them for scripts that do.
     */
    private static final Set<String> BROUGHT_TO_PGQUES_SHAPE = Set.of("pgque.dlq_replay_all(text)");

    /** One line per function and role allowed to execute it: signature, result, role. */
    private static final String API = """
            select p.oid::regprocedure::text || ' returns ' || coalesce(pg_get_function_result(p.oid), 'nothing')
                   || ' to ' || r.rolname
              from pg_proc p
             cross join (values ('pgque_reader'), ('pgque_writer'), ('pgque_ticker'), ('pgque_admin')) r(rolname)
             where p.pronamespace = 'pgque'::regnamespace
               and has_function_privilege(r.rolname, p.oid, 'EXECUTE')""";

    private Set<String> current;

    @BeforeAll
    void installThisEngine() {
        current = api(new Sql(EmbeddedPg.newDatabase("api_now").installEngine().superuser()));
    }

    /** The released scripts from {@link #OLDEST_KEPT} on, oldest first. */
    static List<String> keptReleases() {
        return releases().stream().filter(v -> compare(v, OLDEST_KEPT) >= 0).toList();
    }

    @Test
    void theReleasesKeptIncludeTheOldestPromised() {
        assertEquals(OLDEST_KEPT, keptReleases().get(0), "the released script of the oldest engine whose API is kept");
    }

    @ParameterizedTest(name = "engine {0}")
    @MethodSource("keptReleases")
    void everyFunctionOfAnOlderEnginesApiIsStillCallableAsBefore(String version) throws SQLException {
        EmbeddedPg.TestDatabase db = EmbeddedPg.newDatabase("api_" + version.replace('.', '_'));
        try (Connection c = db.superuser().getConnection(); Statement s = c.createStatement()) {
            s.execute(script(version));
        }
        Set<String> older = api(new Sql(db.superuser()));
        assertFalse(older.isEmpty(), "engine " + version + " has an API");
        Set<String> gone = new TreeSet<>(older);
        gone.removeAll(current);
        gone.removeIf(f -> BROUGHT_TO_PGQUES_SHAPE.stream().anyMatch(pgque -> f.startsWith(pgque + " ")));
        assertEquals(Set.of(), gone, "functions, results or grants of engine " + version
                + " that this engine no longer has: a connector built for " + version + " would fail on them");
    }

    private static Set<String> api(Sql db) {
        return db.rows(API).stream().map(Map::values).map(v -> (String) v.iterator().next())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<String> releases() {
        try (Stream<Path> files = Files.list(Path.of(EngineApiCompatIT.class.getResource(".").toURI()))) {
            return files.map(p -> RELEASED.matcher(p.getFileName().toString()))
                    .filter(Matcher::matches).map(m -> m.group(1))
                    .sorted(EngineApiCompatIT::compare).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < 3; i++) {
            int c = Integer.compare(Integer.parseInt(x[i]), Integer.parseInt(y[i]));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static String script(String version) {
        try (InputStream in = EngineApiCompatIT.class.getResourceAsStream("pgque-" + version + ".sql")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
