/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One PgQue batch of 500,000 events (~100-byte payloads, the ticker having stood still while
 * they were sent) goes through a real source task whose JVM has a 64 MB heap. Holding the batch
 * whole, as the task did before it read batches in chunks, takes several hundred MB (the events
 * and their records): that run dies of OutOfMemoryError. In chunks of
 * {@code pgque.batch.max.events} (1,000) it passes: every event once, in event-id order, no
 * poll() returning more than a chunk, and the batch acked at the end.
 *
 * <p>The task runs in a child JVM, since the heap limit is a property of the JVM; it uses the
 * test's class path and this JVM's embedded PostgreSQL.
 */
class LargeBatchMemoryIT {

    private static final int EVENTS = 500_000;
    private static final int CHUNK = 1_000;
    private static final String HEAP = "-Xmx64m";

    @Test
    void aHalfMillionEventBatchPassesThroughATaskWithA64MbHeap() throws Exception {
        QueueFixture pg = new QueueFixture("large_batch_it");
        String queue = "large";
        String consumer = "large-src";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, consumer, 1, "setup").subscribe();
        // One statement builds and sends all of them: one transaction, so one tick puts them in one batch.
        pg.execute("select pgque.send_batch('" + queue + "', 'row', array(select repeat('x', 94) || lpad(g::text, 6, '0') "
                + "from generate_series(1, " + EVENTS + ") g))");
        pg.tick(queue);

        Path out = Files.createTempFile("large-batch-run", ".log");
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process child = new ProcessBuilder(List.of(java, HEAP, "-XX:+ExitOnOutOfMemoryError",
                "-cp", System.getProperty("java.class.path"), LargeBatchRun.class.getName(),
                pg.jdbcUrl(), queue, consumer, Integer.toString(EVENTS), Integer.toString(CHUNK)))
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        boolean exited = child.waitFor(10, TimeUnit.MINUTES);
        if (!exited) {
            child.destroyForcibly();
        }
        String log = Files.readString(out, StandardCharsets.UTF_8);
        String tail = log.substring(Math.max(0, log.length() - 4000));
        assertTrue(exited, "the task did not finish the batch within 10 minutes:\n" + tail);
        assertEquals(0, child.exitValue(), "the task with " + HEAP + " failed:\n" + tail);
        assertTrue(log.contains("received=" + EVENTS + " largestPoll=" + CHUNK + " "),
                "every event once, no poll() above a chunk:\n" + tail);
        assertEquals(0, pg.pendingEvents(queue, consumer, 0), "the batch was acked");
        Files.deleteIfExists(out);
    }
}
