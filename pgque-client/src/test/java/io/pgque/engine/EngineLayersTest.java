/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine's SQL files (src/main/sql) are layered as their README says: a file calls functions
 * and uses tables of its own and earlier files only, so the core never calls into a mode; where a
 * lower layer lets a higher one decide, it declares a hook, which exactly one later file fills.
 * Read from the sources, without a database.
 */
class EngineLayersTest {

    private static final Path SQL = Path.of("src", "main", "sql");
    private static final Pattern DEFINITION = Pattern.compile(
            "CREATE\\s+(?:OR\\s+REPLACE\\s+)?(?:FUNCTION|PROCEDURE|VIEW|TABLE|SEQUENCE|TYPE)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?pgque\\.(\\w+)",
            Pattern.CASE_INSENSITIVE);
    /** A view the script defines through its helper (01_ddl.sql), its name a literal. */
    private static final Pattern VIEW_DEFINITION = Pattern.compile("pg_temp\\.pgque_define_view\\('pgque\\.(\\w+)'");
    private static final Pattern FUNCTION = Pattern.compile(
            "CREATE\\s+OR\\s+REPLACE\\s+(?:FUNCTION|PROCEDURE)\\s+pgque\\.(\\w+)(?=\\()", Pattern.CASE_INSENSITIVE);
    /** A name used in code. */
    private static final Pattern USED = Pattern.compile("pgque\\.(\\w+)");
    /**
     * A function called from a string: dynamic SQL passes arguments ({@code pgque.slot_of(e.ev_extra1, 4)}),
     * where a message only names a function ({@code use pgque.receive_partitioned()}).
     */
    private static final Pattern CALLED_IN_TEXT = Pattern.compile("pgque\\.(\\w+)\\((?!\\))");

    /** File name → its source, in the order the build assembles them. */
    private static final Map<String, String> FILES = new LinkedHashMap<>();
    /** Object name → the files that define it, in order. */
    private static final Map<String, List<String>> DEFINED = new LinkedHashMap<>();

    @BeforeAll
    static void readSources() throws IOException {
        try (Stream<Path> files = Files.list(SQL)) {
            files.filter(p -> p.getFileName().toString().endsWith(".sql")).sorted()
                    .forEach(p -> FILES.put(p.getFileName().toString(), read(p)));
        }
        FILES.forEach((file, source) -> {
            for (Matcher m : List.of(DEFINITION.matcher(code(source)), VIEW_DEFINITION.matcher(source))) {
                while (m.find()) {
                    List<String> in = DEFINED.computeIfAbsent(m.group(1), k -> new ArrayList<>());
                    if (!in.contains(file)) {
                        in.add(file);
                    }
                }
            }
        });
    }

    @Test
    void everyFileSaysWhichLayerItIs() {
        Set<String> silent = new TreeSet<>();
        FILES.forEach((file, source) -> {
            if (!header(source).contains("Layer:")) {
                silent.add(file);
            }
        });
        assertEquals(Set.of(), silent, "files whose header comment has no 'Layer:' line");
    }

    @Test
    void noFileUsesWhatALaterFileDefines() {
        List<String> file = new ArrayList<>(FILES.keySet());
        Set<String> upward = new TreeSet<>();
        FILES.forEach((name, source) -> used(source).forEach(object -> {
            List<String> definedIn = DEFINED.get(object);
            if (definedIn != null && file.indexOf(definedIn.get(0)) > file.indexOf(name)) {
                upward.add(name + " uses pgque." + object + " of " + definedIn.get(0));
            }
        }));
        assertEquals(Set.of(), upward, "a lower layer may not call a higher one: declare a hook (README.md)");
    }

    @Test
    void everythingUsedIsDefined() {
        Set<String> missing = new TreeSet<>();
        FILES.forEach((name, source) -> used(source).forEach(object -> {
            if (!DEFINED.containsKey(object)) {
                missing.add(name + " uses pgque." + object);
            }
        }));
        assertEquals(Set.of(), missing, "names no file defines (a rename that missed a caller?)");
    }

    /**
     * Only a hook is defined twice: by the layer that declares it (its own answer) and by the one
     * later layer that fills it. Each says so next to the definition.
     */
    @Test
    void aFunctionDefinedTwiceIsAHookDeclaredOnceAndFilledOnce() {
        Set<String> wrong = new TreeSet<>();
        // Signature (name and parameters) → the files that define it: overloads are other functions.
        Map<String, List<String>> functionsIn = new LinkedHashMap<>();
        FILES.forEach((file, source) -> {
            String code = code(source);
            Matcher m = FUNCTION.matcher(code);
            while (m.find()) {
                List<String> in = functionsIn.computeIfAbsent(m.group(1) + parameters(code, m.end()), k -> new ArrayList<>());
                if (!in.contains(file)) {
                    in.add(file);
                }
            }
        });
        functionsIn.forEach((signature, in) -> {
            String function = signature.substring(0, signature.indexOf('('));
            if (function.startsWith("hook_")) {
                if (in.size() != 2) {
                    wrong.add(function + " is defined in " + in + ": a hook is declared in one file and filled in one later file");
                } else {
                    if (!commentBefore(FILES.get(in.get(0)), function).contains("filled by " + in.get(1))) {
                        wrong.add(function + ": its declaration in " + in.get(0) + " does not say 'filled by " + in.get(1) + "'");
                    }
                    if (!commentBefore(FILES.get(in.get(1)), function).contains("Fills " + function)) {
                        wrong.add(function + ": its body in " + in.get(1) + " does not say 'Fills " + function + "'");
                    }
                }
            } else if (in.size() > 1) {
                wrong.add(signature + " is defined in " + in + " but is not a hook_ function");
            }
        });
        assertEquals(Set.of(), wrong);
    }

    @Test
    void theReadmeMapsEveryFile() {
        String readme = read(SQL.resolve("README.md"));
        Set<String> unmapped = new TreeSet<>(FILES.keySet());
        unmapped.removeIf(readme::contains);
        assertEquals(Set.of(), unmapped, "files missing from " + SQL.resolve("README.md"));
    }

    @Test
    void theLexerKeepsCodeAndDropsCommentsAndMessages() {
        String sql = "-- pgque.a()\nSELECT pgque.b(1), 'use pgque.c() -- not a comment', format('pgque.d(%s)', 2); -- pgque.e(3)";
        assertEquals(Set.of("b", "d"), used(sql));
        assertFalse(code(sql).contains("not a comment"));
        assertTrue(header("--\n-- x\n--\n\n-- Layer: core\n\nSELECT 1;\n-- Layer: no").contains("Layer: core"));
        assertFalse(header("SELECT 1;\n-- Layer: late").contains("Layer"));
    }

    /** The parenthesised parameter list that starts at {@code from}, its white space collapsed. */
    private static String parameters(String code, int from) {
        int depth = 0;
        for (int i = from; i < code.length(); i++) {
            char c = code.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (depth == 0) {
                return code.substring(from, i + 1).replaceAll("\\s+", " ");
            }
        }
        throw new IllegalStateException("no end to the parameters at " + from);
    }

    /** The objects a source uses: names in its code, and functions its strings call. */
    private static Set<String> used(String source) {
        Set<String> names = new TreeSet<>();
        Matcher code = USED.matcher(code(source));
        while (code.find()) {
            names.add(code.group(1));
        }
        for (String text : strings(source)) {
            Matcher called = CALLED_IN_TEXT.matcher(text);
            while (called.find()) {
                names.add(called.group(1));
            }
        }
        return names;
    }

    /** The source without comments and without the contents of its '...' literals. */
    private static String code(String source) {
        StringBuilder out = new StringBuilder();
        lex(source, out, new ArrayList<>());
        return out.toString();
    }

    private static List<String> strings(String source) {
        List<String> strings = new ArrayList<>();
        lex(source, new StringBuilder(), strings);
        return strings;
    }

    /**
     * Splits SQL into code (appended to {@code code}, each literal left as '') and the contents of
     * its single-quoted literals; -- comments are dropped. Dollar-quoted bodies are code.
     */
    private static void lex(String s, StringBuilder code, List<String> strings) {
        int i = 0;
        while (i < s.length()) {
            if (s.startsWith("--", i)) {
                int end = s.indexOf('\n', i);
                i = end < 0 ? s.length() : end;
            } else if (s.charAt(i) == '\'') {
                StringBuilder text = new StringBuilder();
                int j = i + 1;
                while (j < s.length()) {
                    if (s.charAt(j) == '\'') {
                        if (j + 1 < s.length() && s.charAt(j + 1) == '\'') {
                            text.append('\'');
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    text.append(s.charAt(j++));
                }
                strings.add(text.toString());
                code.append("''");
                i = j + 1;
            } else {
                code.append(s.charAt(i++));
            }
        }
    }

    /** The comment lines before the first statement (after the license header). */
    private static String header(String source) {
        StringBuilder header = new StringBuilder();
        for (String line : source.split("\n")) {
            if (!line.isBlank() && !line.startsWith("--")) {
                break;
            }
            header.append(line).append('\n');
        }
        return header.toString();
    }

    /** The comment block right above the (first) definition of a function in a file. */
    private static String commentBefore(String source, String function) {
        Matcher m = Pattern.compile("CREATE\\s+OR\\s+REPLACE\\s+FUNCTION\\s+pgque\\." + function + "\\(").matcher(source);
        if (!m.find()) {
            return "";
        }
        String[] before = source.substring(0, m.start()).split("\n");
        StringBuilder comment = new StringBuilder();
        for (int i = before.length - 1; i >= 0 && before[i].startsWith("--"); i--) {
            comment.insert(0, before[i].substring(2).strip() + " ");
        }
        return comment.toString();
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
