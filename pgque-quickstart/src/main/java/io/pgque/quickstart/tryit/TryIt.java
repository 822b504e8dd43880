/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.tryit;

import io.pgque.quickstart.QuickstartOptions.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import org.apache.kafka.common.KafkaException;

/**
 * {@code java -jar pgque-quickstart.jar produce|consume TOPIC}: what a user needs to poke at the
 * running pipeline with nothing but a JDK, in place of Kafka's console tools.
 */
public final class TryIt {

    /** Exit codes, as the quickstart's: 0 done, 1 failed, 2 bad arguments. */
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    private TryIt() {
    }

    /** Runs {@code args} ({@code produce TOPIC ...} or {@code consume TOPIC ...}); returns the exit code. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                out.println(TryItOptions.USAGE);
                return OK;
            }
        }
        TryItOptions options;
        try {
            options = TryItOptions.parse(args);
        } catch (UsageException e) {
            err.println("error: " + e.getMessage());
            err.println(TryItOptions.USAGE);
            return USAGE;
        }
        try {
            return TryItOptions.PRODUCE.equals(options.command())
                    ? ConsoleProducer.run(options, in, out, err)
                    : ConsoleConsumer.run(options, out, err);
        } catch (IOException | KafkaException e) {
            err.println("error: " + e.getMessage());
            return FAILED;
        }
    }
}
