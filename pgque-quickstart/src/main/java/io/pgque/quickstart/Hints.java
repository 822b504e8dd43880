package io.pgque.quickstart;

import io.pgque.quickstart.QuickstartRun.Endpoints;

/** What to try while the quickstart keeps running: the commands, filled in with this run's addresses. */
final class Hints {

    private Hints() {
    }

    static String whileRunning(Endpoints e) {
        String rest = e.restUrl().endsWith("/") ? e.restUrl() : e.restUrl() + "/";
        String sink = e.connectors().get(0);
        String source = e.connectors().get(1);
        return String.join("\n",
                "",
                "Everything keeps running. Try:",
                "  curl -s '" + rest + "connectors?expand=status'",
                "  curl -s " + rest + "connectors/" + source + "/config",
                "  curl -s -X POST '" + rest + "connectors/" + sink + "/restart?includeTasks=true'",
                "  kafka-console-consumer.sh --bootstrap-server " + e.bootstrapServers() + " --topic " + e.outputTopic()
                        + " --property print.key=true --property print.headers=true",
                "  kafka-console-producer.sh --bootstrap-server " + e.bootstrapServers() + " --topic " + e.inputTopic()
                        + " --property parse.key=true --property key.separator=' '",
                "      (then type e.g.: tenant-0001 {\"hello\":\"pgque\"})",
                "  psql '" + psqlUrl(e) + "' -c 'select * from pgque.partition_slot_status'",
                "Press Ctrl-C to stop; the data stays for the next run.",
                "");
    }

    /** The JDBC URL in the libpq form psql takes (no password: psql asks for one if needed). */
    static String psqlUrl(Endpoints e) {
        String url = e.database().jdbcUrl().replaceFirst("^jdbc:", "");
        int query = url.indexOf('?');
        String base = query < 0 ? url : url.substring(0, query);
        return base.replaceFirst("^postgresql://", "postgresql://" + e.database().user() + "@");
    }
}
