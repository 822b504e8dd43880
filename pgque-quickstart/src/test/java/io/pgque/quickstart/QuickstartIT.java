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
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The quickstart end to end, in this JVM, as a user runs it with {@code --once}: embedded
 * PostgreSQL, KRaft broker and Connect worker, both connectors deployed from {@code config/}.
 */
class QuickstartIT {

    private static final int EVENTS = 2_000;
    private static final int SLOTS = 4;

    @Test
    void allEventsArriveInKeyOrderAndARestartReusesTheData() {
        // fresh for this test run, kept afterwards in target/ for a look
        Path dataDir = Path.of("target", "it-quickstart-data-" + System.currentTimeMillis());

        Report first = runOnce(dataDir, EVENTS);
        assertEquals(EVENTS, first.eventsIn(), "every event acknowledged on the input topic");
        assertEquals(EVENTS, first.eventsOut(), "every event read back from the output topic");
        assertEquals(0, first.outOfOrder(), "per-key order held");
        assertTrue(first.latencyP50Micros() > 0 && first.latencyP99Micros() >= first.latencyP50Micros(),
                "latencies measured: " + first);
        assertEquals(SLOTS, first.slots().size(), "one lag line per slot");
        for (SlotLag slot : first.slots()) {
            assertNotNull(slot.owner(), "every slot leased by a source task: " + slot);
        }
        String text = ReportFormatter.format(first);
        assertTrue(text.contains("all arrived") && text.contains("held"), text);

        // the second run finds the engine, the queue, the topics and the connectors from the first
        Report second = runOnce(dataDir, EVENTS / 4);
        assertEquals(EVENTS / 4, second.eventsOut(), "the restarted pipeline delivers this run's events: " + second);
        assertEquals(0, second.outOfOrder());
    }

    private static Report runOnce(Path dataDir, int events) {
        QuickstartOptions options = QuickstartOptions.parse("--once", "--events=" + events, "--tenants=50",
                "--slots=" + SLOTS, "--rate=2000", "--rest-port=0", "--data-dir=" + dataDir).orElseThrow();
        Quickstart.Outcome outcome = Quickstart.run(options);
        assertNotNull(outcome.report(), "the run got as far as a report; see the log above for why not");
        assertEquals(Quickstart.OK, outcome.exitCode(), ReportFormatter.format(outcome.report()));
        return outcome.report();
    }
}
