/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import io.pgque.quickstart.QuickstartRun.Endpoints;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What to try while the quickstart keeps running: the commands, filled in with this run's addresses. */
final class Hints {

    /** How the README builds and runs the jar; used when this code does not run from a jar. */
    static final String DEFAULT_JAR = "pgque-quickstart/target/pgque-quickstart.jar";

    private Hints() {
    }

    static String whileRunning(Endpoints e) {
        String rest = e.restUrl().endsWith("/") ? e.restUrl() : e.restUrl() + "/";
        String jar = "  java -jar " + jar() + " ";
        String kafka = " --bootstrap-servers=" + e.bootstrapServers();
        List<String> lines = new ArrayList<>(List.of(
                "",
                "Everything keeps running. Try:",
                "  curl -s '" + rest + "connectors?expand=status'",
                "  curl -s " + rest + "connectors/" + e.sourceName() + "/config",
                "  curl -s -X POST '" + rest + "connectors/" + e.sinkName() + "/restart?includeTasks=true'",
                jar + "consume " + e.outputTopic() + kafka,
                "      prints each record that comes out as key, value and headers; in another terminal:",
                jar + "produce " + e.inputTopic() + kafka,
                "      then type a key, a space and a JSON value, e.g.: tenant-0001 {\"hello\":\"pgque\"}"));
        if (!e.deadLetterTopic().isEmpty()) {
            lines.add("      a value that is not JSON goes to the dead letter topic:");
            lines.add(jar + "consume " + e.deadLetterTopic() + kafka + " --from-beginning");
        }
        lines.add("  psql '" + psqlUrl(e) + "' -c 'select * from pgque.partition_slot_status'");
        lines.add("Press Ctrl-C to stop; the data stays for the next run.");
        lines.add("");
        return String.join("\n", lines);
    }

    /** The jar this runs from, as the user can type it from the working directory. */
    static String jar() {
        try {
            Path location = Path.of(Hints.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (location.getFileName().toString().endsWith(".jar")) {
                Path here = Path.of("").toAbsolutePath();
                return (location.startsWith(here) ? here.relativize(location) : location).toString();
            }
        } catch (Exception notAFile) {
            // a class loader without a file location: name the jar the build makes
        }
        return DEFAULT_JAR;
    }

    /** The JDBC URL in the libpq form psql takes (no password: psql asks for one if needed). */
    static String psqlUrl(Endpoints e) {
        String url = e.database().jdbcUrl().replaceFirst("^jdbc:", "");
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        return base.replaceFirst("^postgresql://", "postgresql://" + e.database().user() + "@");
    }
}
