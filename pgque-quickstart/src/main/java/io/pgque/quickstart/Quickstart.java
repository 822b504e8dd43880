/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import io.pgque.quickstart.QuickstartOptions.UsageException;
import io.pgque.quickstart.report.Report;
import io.pgque.quickstart.report.ReportFormatter;
import io.pgque.quickstart.tryit.TryIt;
import io.pgque.quickstart.tryit.TryItOptions;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one-command demo: {@code java -jar pgque-quickstart.jar [--once] [flags]}; and, beside a
 * running one, {@code produce TOPIC} and {@code consume TOPIC} ({@link TryIt}). See
 * {@code docs/getting-started.md}.
 */
public final class Quickstart {

    private static final Logger LOG = LoggerFactory.getLogger(Quickstart.class);

    /** Exit codes: 0 all events arrived in order, 1 they did not or something failed, 2 bad flags. */
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    private Quickstart() {
    }

    public static void main(String[] args) {
        if (args.length > 0 && TryItOptions.isCommand(args[0])) {
            System.exit(TryIt.run(args, System.in, System.out, System.err));
        }
        Optional<QuickstartOptions> options;
        try {
            options = QuickstartOptions.parse(args);
        } catch (UsageException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println(QuickstartOptions.USAGE);
            System.exit(USAGE);
            return;
        }
        if (options.isEmpty()) {
            System.out.println(QuickstartOptions.USAGE);
            return;
        }
        // exit explicitly: Kafka's client and server threads would otherwise keep the JVM up
        System.exit(run(options.get()).exitCode());
    }

    /**
     * How a run ended.
     *
     * @param exitCode {@link #OK} or {@link #FAILED}
     * @param report   the report, or null if the run failed before it had one
     */
    record Outcome(int exitCode, Report report) {
    }

    /**
     * Runs the quickstart. With {@code --once} it stops everything after the report and returns;
     * otherwise it never returns: the services keep running until Ctrl-C or SIGTERM, whose hook
     * stops them.
     */
    static Outcome run(QuickstartOptions options) {
        Shutdown.captureKafkaHooks();
        QuickstartRun run = new QuickstartRun(options);
        Thread hook = Shutdown.onSignal(run::close);
        try {
            Report report = run.run();
            LOG.info(ReportFormatter.format(report));
            if (options.once()) {
                return new Outcome(report.ok() ? OK : FAILED, report);
            }
            LOG.info(Hints.whileRunning(run.endpoints()));
            awaitShutdown();
            return new Outcome(OK, report);
        } catch (Exception e) {
            if (run.closing()) {
                LOG.info("Stopped before the demo finished.");
            } else {
                LOG.error("The quickstart failed: {}", e.toString(), e);
            }
            return new Outcome(FAILED, null);
        } finally {
            // reached after --once, or after a failure; never while the services should stay up
            run.close();
            Shutdown.remove(hook);
        }
    }

    /** Parks the main thread; the shutdown hook stops the services and the JVM exits after it. */
    private static void awaitShutdown() throws InterruptedException {
        new CountDownLatch(1).await();
    }
}
