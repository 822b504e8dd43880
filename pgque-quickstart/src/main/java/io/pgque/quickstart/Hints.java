/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import io.pgque.quickstart.QuickstartRun.Endpoints;
import java.util.ArrayList;
import java.util.List;

/** What to try while the quickstart keeps running: the commands, filled in with this run's addresses. */
final class Hints {

    private Hints() {
    }

    static String whileRunning(Endpoints e) {
        String rest = e.restUrl().endsWith("/") ? e.restUrl() : e.restUrl() + "/";
        String kafka = " --bootstrap-server " + e.bootstrapServers() + " --topic ";
        List<String> lines = new ArrayList<>(List.of(
                "",
                "Everything keeps running. Try:",
                "  curl -s '" + rest + "connectors?expand=status'",
                "  curl -s " + rest + "connectors/" + e.sourceName() + "/config",
                "  curl -s -X POST '" + rest + "connectors/" + e.sinkName() + "/restart?includeTasks=true'",
                "  kafka-console-consumer.sh" + kafka + e.outputTopic() + " --property print.key=true --property print.headers=true",
                "  kafka-console-producer.sh" + kafka + e.inputTopic() + " --property parse.key=true --property key.separator=' '",
                "      then type a key, a space and a JSON value, e.g.: tenant-0001 {\"hello\":\"pgque\"}"));
        if (!e.deadLetterTopic().isEmpty()) {
            lines.add("      a value that is not JSON goes to the dead letter topic:");
            lines.add("  kafka-console-consumer.sh" + kafka + e.deadLetterTopic() + " --from-beginning --property print.headers=true");
        }
        lines.add("  psql '" + psqlUrl(e) + "' -c 'select * from pgque.partition_slot_status'");
        lines.add("Press Ctrl-C to stop; the data stays for the next run.");
        lines.add("");
        return String.join("\n", lines);
    }

    /** The JDBC URL in the libpq form psql takes (no password: psql asks for one if needed). */
    static String psqlUrl(Endpoints e) {
        String url = e.database().jdbcUrl().replaceFirst("^jdbc:", "");
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        return base.replaceFirst("^postgresql://", "postgresql://" + e.database().user() + "@");
    }
}
