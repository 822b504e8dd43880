/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.tryit;

import io.pgque.quickstart.QuickstartOptions.UsageException;
import io.pgque.quickstart.RememberedPort;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The command line of {@code produce} and {@code consume}.
 *
 * @param command          {@link #PRODUCE} or {@link #CONSUME}
 * @param topic            the topic to write or read
 * @param bootstrapServers the broker; by default the quickstart's own broker, found through the
 *                         port it keeps in the data directory
 * @param fromBeginning    consume: read the topic from its start rather than only new records
 * @param maxRecords       consume: stop after this many records
 */
public record TryItOptions(String command, String topic, String bootstrapServers, boolean fromBeginning,
                           OptionalLong maxRecords) {

    public static final String PRODUCE = "produce";
    public static final String CONSUME = "consume";
    /** Where the quickstart's broker keeps its port; see {@code EmbeddedKafka}. */
    static final String KAFKA_PORT_FILE = "kafka.port";
    static final Path DEFAULT_DATA_DIR = Path.of("target", "quickstart-data");

    public static final String USAGE = String.join("\n",
            "usage: java -jar pgque-quickstart.jar produce TOPIC [--bootstrap-servers=HOSTS] [--data-dir=PATH]",
            "         reads lines from standard input: a key, a space, the value (a line without a space has no key)",
            "       java -jar pgque-quickstart.jar consume TOPIC [--bootstrap-servers=HOSTS] [--data-dir=PATH]",
            "                                                  [--from-beginning] [--max-records=N]",
            "         prints each record as key, value and headers (name=value,...), separated by tabs",
            "  --bootstrap-servers=HOSTS the broker (default: the running quickstart's, from its data directory)",
            "  --data-dir=PATH           the quickstart's data directory (default target/quickstart-data)",
            "  --from-beginning          read the topic from its start (default: only records that arrive from now on)",
            "  --max-records=N           stop after N records (default: run until Ctrl-C)");

    /** Whether {@code firstArgument} names one of these commands. */
    public static boolean isCommand(String firstArgument) {
        return PRODUCE.equals(firstArgument) || CONSUME.equals(firstArgument);
    }

    /** Parses {@code produce TOPIC [flags]} or {@code consume TOPIC [flags]}. */
    public static TryItOptions parse(String... args) {
        if (args.length < 2 || args[1].startsWith("--")) {
            throw new UsageException(args.length == 0 ? "no command" : args[0] + " needs a topic: " + args[0] + " TOPIC");
        }
        String command = args[0];
        String topic = args[1];
        String servers = null;
        Path dataDir = DEFAULT_DATA_DIR;
        boolean fromBeginning = false;
        OptionalLong max = OptionalLong.empty();
        for (int i = 2; i < args.length; i++) {
            String arg = args[i];
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq < 0 ? null : arg.substring(eq + 1);
            switch (name) {
                case "--bootstrap-servers" -> servers = required(name, value);
                case "--data-dir" -> dataDir = Path.of(required(name, value));
                case "--from-beginning" -> fromBeginning = consumeOnly(command, name, value);
                case "--max-records" -> {
                    consumeOnly(command, name, null);
                    max = OptionalLong.of(positive(name, required(name, value)));
                }
                default -> throw new UsageException("unknown argument '" + arg + "' for " + command);
            }
        }
        if (servers == null) {
            servers = quickstartBroker(dataDir);
        }
        return new TryItOptions(command, topic, servers, fromBeginning, max);
    }

    private static String quickstartBroker(Path dataDir) {
        Optional<Integer> port = RememberedPort.recorded(dataDir.resolve(KAFKA_PORT_FILE));
        if (port.isEmpty()) {
            throw new UsageException("no --bootstrap-servers, and no quickstart broker recorded in " + dataDir
                    + "; give the address the quickstart printed, or its --data-dir");
        }
        return "127.0.0.1:" + port.get();
    }

    private static String required(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new UsageException(name + " needs a value: " + name + "=...");
        }
        return value;
    }

    private static boolean consumeOnly(String command, String name, String value) {
        if (!CONSUME.equals(command)) {
            throw new UsageException(name + " is for consume only");
        }
        if (value != null) {
            throw new UsageException(name + " takes no value");
        }
        return true;
    }

    private static long positive(String name, String value) {
        try {
            long n = Long.parseLong(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(name + " must be a whole number above 0, got '" + value + "'");
    }
}
