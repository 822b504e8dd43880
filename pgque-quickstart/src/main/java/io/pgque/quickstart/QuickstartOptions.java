/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The command line, parsed. Every flag has a default, so the bare command runs the whole demo.
 *
 * @param once             exit after the report instead of running until Ctrl-C
 * @param jdbcUrl          an existing PostgreSQL to use instead of the embedded one
 * @param dbUser           user for {@code jdbcUrl} (the embedded database uses {@code postgres})
 * @param dbPassword       password for {@code jdbcUrl}
 * @param bootstrapServers an existing Kafka cluster to use instead of the embedded broker
 * @param events           demo events to send
 * @param tenants          distinct keys the events are spread over
 * @param slots            N, the source's fixed slot count (and its task count); empty: as in
 *                         {@code config/pgque-source.json}
 * @param rate             events per second the producer aims for; 0 sends as fast as it can
 * @param warmup           events sent through the pipeline before the measured ones, not measured
 * @param restPort         port of the Connect worker's REST API; 0 picks a free one
 * @param dataDir          where Kafka, PostgreSQL and the worker keep their data between runs
 * @param configDir        folder holding the connector JSON files; empty: look upwards from the
 *                         working directory for {@code config/}
 */
public record QuickstartOptions(boolean once, Optional<String> jdbcUrl, String dbUser, String dbPassword,
                                Optional<String> bootstrapServers, int events, int tenants, OptionalInt slots,
                                int rate, int warmup, int restPort, Path dataDir, Optional<Path> configDir) {

    public static final String USAGE = String.join("\n",
            "usage: java -jar pgque-quickstart.jar [flags]",
            "  --once                    print the report and exit (default: keep running until Ctrl-C)",
            "  --events=N                demo events to send (default 20000)",
            "  --tenants=N               tenants (record keys) to spread them over (default 200)",
            "  --slots=N                 slots of the source's consumer, one task each (default: pgque.slots of the source file, 4)",
            "  --rate=N                  events per second to aim for, 0 = unthrottled (default 5000)",
            "  --warmup=N                events sent first, at the same rate, and not measured (default 30000; 0 = none)",
            "  --rest-port=N             Connect REST port, 0 = any free port (default 8083)",
            "  --data-dir=PATH           persistent data of Kafka, PostgreSQL, Connect (default target/quickstart-data)",
            "  --jdbc-url=URL            use this PostgreSQL instead of an embedded one",
            "  --db-user=NAME            its user (default postgres)",
            "  --db-password=SECRET      its password (default empty)",
            "  --bootstrap-servers=HOSTS use this Kafka cluster instead of an embedded broker",
            "  --config-dir=PATH         folder with pgque-sink.json and pgque-source.json (default: ./config, searched upwards)",
            "  --help                    this text",
            "and beside a running quickstart:",
            "       java -jar pgque-quickstart.jar produce TOPIC   (lines of key, space, value from standard input)",
            "       java -jar pgque-quickstart.jar consume TOPIC   (prints key, value, headers; --help for their flags)");

    /** Thrown for a command line that cannot be run; the message says what is wrong. */
    public static final class UsageException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }

    /** Parses {@code --name=value} and {@code --flag} arguments; {@code --help} yields empty. */
    public static Optional<QuickstartOptions> parse(String... args) {
        Builder b = new Builder();
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                return Optional.empty();
            }
            if (!arg.startsWith("--")) {
                throw new UsageException("unexpected argument '" + arg + "'");
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            String value = eq < 0 ? null : arg.substring(eq + 1);
            b.set(name, value);
        }
        return Optional.of(b.build());
    }

    /** Accumulates flags; the defaults live here, in one place. */
    private static final class Builder {
        boolean once;
        String jdbcUrl;
        String dbUser = "postgres";
        String dbPassword = "";
        String bootstrapServers;
        int events = 20_000;
        int tenants = 200;
        Integer slots;
        int rate = 5_000;
        int warmup = 30_000;
        int restPort = 8083;
        Path dataDir = Path.of("target", "quickstart-data");
        Path configDir;

        void set(String name, String value) {
            switch (name) {
                case "once" -> once = flag(name, value);
                case "jdbc-url" -> jdbcUrl = text(name, value);
                case "db-user" -> dbUser = text(name, value);
                case "db-password" -> dbPassword = value == null ? "" : value;
                case "bootstrap-servers" -> bootstrapServers = text(name, value);
                case "events" -> events = number(name, value, 1, Integer.MAX_VALUE);
                case "tenants" -> tenants = number(name, value, 1, 1_000_000);
                // 256 is the engine's limit on N
                case "slots" -> slots = number(name, value, 1, 256);
                case "rate" -> rate = number(name, value, 0, Integer.MAX_VALUE);
                case "warmup" -> warmup = number(name, value, 0, Integer.MAX_VALUE);
                case "rest-port" -> restPort = number(name, value, 0, 65_535);
                case "data-dir" -> dataDir = Path.of(text(name, value));
                case "config-dir" -> configDir = Path.of(text(name, value));
                default -> throw new UsageException("unknown flag --" + name);
            }
        }

        QuickstartOptions build() {
            // the connector files say jdbc:postgresql://${PGQUE_DB_ADDRESS}, which needs this form
            if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql://")) {
                throw new UsageException("--jdbc-url must look like jdbc:postgresql://host:port/database");
            }
            return new QuickstartOptions(once, Optional.ofNullable(jdbcUrl), dbUser, dbPassword,
                    Optional.ofNullable(bootstrapServers), events, tenants,
                    slots == null ? OptionalInt.empty() : OptionalInt.of(slots), rate, warmup, restPort,
                    dataDir, Optional.ofNullable(configDir));
        }

        private static boolean flag(String name, String value) {
            if (value == null) {
                return true;
            }
            if (value.equals("true") || value.equals("false")) {
                return Boolean.parseBoolean(value);
            }
            throw new UsageException("--" + name + " takes no value (or true/false), got '" + value + "'");
        }

        private static String text(String name, String value) {
            if (value == null || value.isBlank()) {
                throw new UsageException("--" + name + " needs a value: --" + name + "=...");
            }
            return value;
        }

        private static int number(String name, String value, int min, int max) {
            String text = text(name, value).replace("_", "").replace(",", "");
            int n;
            try {
                n = Integer.parseInt(text);
            } catch (NumberFormatException e) {
                throw new UsageException("--" + name + " must be a whole number, got '" + value + "'");
            }
            if (n < min || n > max) {
                throw new UsageException("--" + name + " must be between " + min + " and " + max + ", got " + n);
            }
            return n;
        }
    }

    /** Every option but the password, which never goes to a log or an error message. */
    @Override
    public String toString() {
        return "QuickstartOptions[once=" + once + ", jdbcUrl=" + jdbcUrl + ", dbUser=" + dbUser
                + ", dbPassword=" + (dbPassword == null || dbPassword.isEmpty() ? "(none)" : "(hidden)")
                + ", bootstrapServers=" + bootstrapServers + ", events=" + events + ", tenants=" + tenants
                + ", slots=" + slots + ", rate=" + rate + ", restPort=" + restPort + ", dataDir=" + dataDir
                + ", configDir=" + configDir + "]";
    }
}
