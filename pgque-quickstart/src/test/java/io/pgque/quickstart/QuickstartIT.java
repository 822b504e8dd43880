/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.quickstart.postgres.SlotLag;
import io.pgque.quickstart.report.Report;
import io.pgque.quickstart.report.ReportFormatter;
import io.pgque.quickstart.tryit.TryIt;
import io.pgque.testsupport.Await;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The quickstart end to end, in this JVM, as a user runs it with {@code --once}: embedded
 * PostgreSQL, KRaft broker and Connect worker, both connectors deployed from {@code config/}; then
 * restarted on the same data and kept running, as without {@code --once}, while the
 * {@code produce} and {@code consume} commands it prints are run.
 */
class QuickstartIT {

    private static final int EVENTS = 2_000;
    private static final int SLOTS = 4;
    /** A small warm-up: enough to run the code path, little time. */
    private static final int WARMUP = 300;

    @Test
    void allEventsArriveInKeyOrderAndARestartReusesTheData() throws Exception {
        // fresh for this test run, kept afterwards in target/ for a look
        Path dataDir = Path.of("target", "it-quickstart-data-" + System.currentTimeMillis());

        Report first = runOnce(dataDir, EVENTS);
        assertEquals(EVENTS, first.eventsIn(), "every event acknowledged on the input topic");
        assertEquals(EVENTS, first.eventsOut(), "every event read back from the output topic");
        assertEquals(0, first.outOfOrder(), "per-key order held");
        assertTrue(first.latencyP50Micros() > 0 && first.latencyP99Micros() >= first.latencyP50Micros(),
                "latencies measured: " + first);
        assertEquals(WARMUP, first.warmupEvents(), "a warm-up ran first and is left out of the counts");
        assertTrue(first.stages().isPresent(), "the latency split at the queue: " + first);
        assertEquals(SLOTS, first.slots().size(), "one lag line per slot");
        for (SlotLag slot : first.slots()) {
            assertNotNull(slot.owner(), "every slot leased by a source task: " + slot);
        }
        String text = ReportFormatter.format(first);
        assertTrue(text.contains("all arrived") && text.contains("held"), text);

        // the second run finds the engine, the queue, the topics and the connectors from the first;
        // it keeps running, as without --once, for the commands it prints
        try (QuickstartRun run = new QuickstartRun(options(dataDir, EVENTS / 4, false))) {
            Report second = run.run();
            assertEquals(EVENTS / 4, second.eventsOut(), "the restarted pipeline delivers this run's events: " + second);
            assertEquals(0, second.outOfOrder());
            printedProduceAndConsumeCommandsMoveARecordThroughSinkQueueAndSource(Hints.whileRunning(run.endpoints()));
        }
    }

    /**
     * The {@code consume} and {@code produce} lines the quickstart prints, run as printed: a line
     * typed into the producer comes out of the output topic with the source's headers.
     */
    private static void printedProduceAndConsumeCommandsMoveARecordThroughSinkQueueAndSource(String hints)
            throws Exception {
        String[] consume = printedCommand(hints, "consume file-events-out");
        String[] produce = printedCommand(hints, "produce file-events");
        Captured consumed = new Captured();
        Captured consumerErr = new Captured();
        AtomicInteger consumerExit = new AtomicInteger(-1);
        Thread consumer = new Thread(() -> consumerExit.set(
                TryIt.run(consume, InputStream.nullInputStream(), consumed.stream, consumerErr.stream)), "it-consume");
        consumer.start();
        try {
            await(() -> consumerErr.text().contains("Reading file-events-out"), "the consumer to start reading: " + consumerErr);

            Captured produced = new Captured();
            Captured producerErr = new Captured();
            String line = "tryit-tenant {\"hello\":\"pgque\"}\n";
            int exit = TryIt.run(produce, new ByteArrayInputStream(line.getBytes(StandardCharsets.UTF_8)),
                    produced.stream, producerErr.stream);
            assertEquals(0, exit, "produce: " + produced + producerErr);
            assertTrue(produced.text().contains("sent line 1 to file-events partition"), produced.text());

            await(() -> consumed.text().contains("tryit-tenant\t{\"hello\":\"pgque\"}\t"),
                    "the record to come out of the source: " + consumed);
            String out = consumed.text().lines().filter(l -> l.startsWith("tryit-tenant\t")).findFirst().orElseThrow();
            for (String header : List.of("pgque.event.id=", "pgque.slot=", "pgque.epoch=", "pgque.extra3=file-events/")) {
                assertTrue(out.contains(header), "header " + header + " in " + out);
            }
        } finally {
            consumer.interrupt();
            consumer.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertEquals(0, consumerExit.get(), "consume ends quietly when stopped: " + consumerErr);
    }

    /** The arguments after the jar of the printed command that contains {@code what}. */
    private static String[] printedCommand(String hints, String what) {
        String line = hints.lines().filter(l -> l.contains(" java -jar ") && l.contains(" " + what + " "))
                .findFirst().orElseThrow(() -> new AssertionError("no '" + what + "' command in:\n" + hints));
        String[] words = line.trim().split("\\s+");
        assertEquals("java", words[0]);
        assertEquals("-jar", words[1]);
        return Arrays.copyOfRange(words, 3, words.length);
    }

    private static void await(BooleanSupplier condition, String what) {
        Await.until(what, Duration.ofSeconds(120), Duration.ofMillis(100), condition);
    }

    /** What a command printed to one of its streams. */
    private static final class Captured {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream stream = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return text();
        }
    }

    private static QuickstartOptions options(Path dataDir, int events, boolean once) {
        return QuickstartOptions.parse("--once=" + once, "--events=" + events, "--tenants=50",
                "--slots=" + SLOTS, "--rate=2000", "--warmup=" + WARMUP, "--rest-port=0", "--data-dir=" + dataDir)
                .orElseThrow();
    }

    private static Report runOnce(Path dataDir, int events) {
        Quickstart.Outcome outcome = Quickstart.run(options(dataDir, events, true));
        assertNotNull(outcome.report(), "the run got as far as a report; see the log above for why not");
        assertEquals(Quickstart.OK, outcome.exitCode(), ReportFormatter.format(outcome.report()));
        return outcome.report();
    }
}
