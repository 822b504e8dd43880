/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source;

import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.FaultInjectingDataSource.When;
import io.pgque.connect.source.ordered.ConsumerSetup;
import org.apache.kafka.connect.errors.RetriableException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source task sets up its consumer honouring {@code connection.attempts} as the sink does:
 * that many tries within one poll, {@code connection.backoff.ms} apart, then a retriable failure
 * for the worker, and a new round at the next poll.
 */
class ConsumerSetupIT {

    private static final Duration BACKOFF = Duration.ofMillis(50);
    private static final AtomicInteger QUEUES = new AtomicInteger();

    private static QueueFixture pg;

    @BeforeAll
    static void database() {
        pg = new QueueFixture("consumer_setup_it");
    }

    private static String newQueue() {
        String queue = "setup_q" + QUEUES.incrementAndGet();
        pg.createQueue(queue);
        return queue;
    }

    /** The database, but the set-up's first statement fails as a dropped connection does. */
    private static FaultInjectingDataSource failingOnce() {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(pg.ds);
        faulty.arm("partition_slot_status", When.BEFORE_STATEMENT, 1);
        return faulty;
    }

    private static int slotsOf(String queue) {
        return pg.pgque.slotConsumer(queue, "c", 2, "probe").status().size();
    }

    @Test
    void aTransientFailureIsTriedAgainWithinOnePoll() throws Exception {
        String queue = newQueue();
        FaultInjectingDataSource faulty = failingOnce();
        ConsumerSetup setup = new ConsumerSetup(faulty, SchemaInstall.NONE, queue, "c", 2, 2, BACKOFF);

        assertTrue(setup.ready(), "the second attempt of the same poll sets the consumer up");
        assertEquals(1, faulty.injected());
        assertEquals(2, slotsOf(queue));
    }

    @Test
    void theWorkerHearsOfTheFailureAfterConnectionAttemptsAndTheNextPollTriesAgain() throws Exception {
        String queue = newQueue();
        ConsumerSetup setup = new ConsumerSetup(failingOnce(), SchemaInstall.NONE, queue, "c", 2, 1, BACKOFF);

        RetriableException e = assertThrows(RetriableException.class, setup::ready);
        assertTrue(e.getMessage().contains("1 attempt(s)") && e.getMessage().contains("connection.attempts"),
                e.getMessage());
        assertTrue(setup.ready(), "the next poll starts a new round");
        assertEquals(2, slotsOf(queue));
    }

    @Test
    void anUnreachableDatabaseIsTriedExactlyConnectionAttemptsTimesPerPoll() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        DataSource unreachable = counting(refusedPort(), connections);
        ConsumerSetup setup = new ConsumerSetup(unreachable, SchemaInstall.NONE, "q", "c", 2, 3, BACKOFF);

        assertThrows(RetriableException.class, setup::ready);
        assertEquals(3, connections.get());
        assertThrows(RetriableException.class, setup::ready);
        assertEquals(6, connections.get());

        setup.stop();
        assertFalse(setup.ready(), "a stopped task's poll returns instead of waiting out the round");
        assertEquals(7, connections.get());
    }

    /** A data source for a port nothing listens on: connections are refused (SQLSTATE 08001). */
    private static PGSimpleDataSource refusedPort() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName("postgres");
        ds.setConnectTimeout(5);
        return ds;
    }

    private static DataSource counting(DataSource real, AtomicInteger connections) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        connections.incrementAndGet();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
