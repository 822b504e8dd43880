/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.testing.EmbeddedPg;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The client's binding of the engine's stored sink offsets, against the real engine. */
class SinkOffsetsClientIT {

    private static final String OWNER = "client_sinkoffsets_owner";
    private static final String OTHER = "client_sinkoffsets_other";

    private static EmbeddedPg.TestDatabase db;
    private static PgQue pq;

    @BeforeAll
    static void setUp() {
        db = ClientTesting.newDatabase("client_sinkoffsets").installEngine();
        pq = PgQue.using(db.superuser());
        ClientTesting.loginRole(db.superuser(), OWNER, "pgque_writer");
        ClientTesting.loginRole(db.superuser(), OTHER, "pgque_writer");
    }

    @Test
    void aConnectorNeverWrittenHasNoStoredOffsets() {
        assertEquals(List.of(), pq.sinkOffsets("never_written").read());
    }

    @Test
    void movesCommitAndRollBackWithTheCallersTransaction() throws SQLException {
        SinkOffsets.Move first = new SinkOffsets.Move("orders", 0, null, 10);
        SinkOffsets.Move second = new SinkOffsets.Move("orders", 1, null, 5);
        try (Connection c = db.superuser().getConnection()) {
            c.setAutoCommit(false);
            PgQue.using(c).sinkOffsets("tx").commit(List.of(first, second));
            assertEquals(List.of(), pq.sinkOffsets("tx").read(), "not visible before the caller commits");
            c.rollback();
            PgQue.using(c).sinkOffsets("tx").commit(List.of(first, second));
            c.commit();
        }
        assertEquals(List.of(new SinkOffsets.Stored("orders", 0, 10), new SinkOffsets.Stored("orders", 1, 5)),
                pq.sinkOffsets("tx").read());

        pq.sinkOffsets("tx").commit(List.of(new SinkOffsets.Move("orders", 0, 10L, 12)));
        pq.sinkOffsets("tx").commit(List.of());
        assertEquals(List.of(new SinkOffsets.Stored("orders", 0, 12), new SinkOffsets.Stored("orders", 1, 5)),
                pq.sinkOffsets("tx").read());
    }

    @Test
    void aMoveFromAnOffsetNoLongerStoredIsFencedAndStoresNothing() {
        SinkOffsets offsets = pq.sinkOffsets("fenced");
        offsets.commit(List.of(new SinkOffsets.Move("t", 0, null, 7)));

        SinkOffsetsFencedException e = assertThrows(SinkOffsetsFencedException.class, () -> offsets.commit(List.of(
                new SinkOffsets.Move("t", 1, null, 3), new SinkOffsets.Move("t", 0, 6L, 9))));
        assertEquals("PQ010", e.sqlState());
        assertFalse(e.isTransient(), "the same transaction again would be refused again");
        assertInstanceOf(SQLException.class, e.getCause());
        assertTrue(e.getMessage().startsWith("store the offsets of connector 'fenced' failed: "), e.getMessage());
        assertEquals(List.of(new SinkOffsets.Stored("t", 0, 7)), offsets.read(), "all or nothing");
    }

    @Test
    void anOperatorSetsForgetsAndResetsOffsets() {
        SinkOffsets offsets = pq.sinkOffsets("operator");
        offsets.commit(List.of(new SinkOffsets.Move("a", 0, null, 4), new SinkOffsets.Move("a", 1, null, 8)));

        int changed = offsets.set(List.of(new SinkOffsets.Change("a", 0, null), new SinkOffsets.Change("a", 1, 2L),
                new SinkOffsets.Change("b", 3, 30L)));
        assertEquals(3, changed);
        assertEquals(List.of(new SinkOffsets.Stored("a", 1, 2), new SinkOffsets.Stored("b", 3, 30)), offsets.read());

        assertEquals(2, offsets.reset());
        assertEquals(List.of(), offsets.read());
        assertEquals(0, offsets.reset());
    }

    @Test
    void badArgumentsAndAnotherRolesOffsetsAreRefusedWithTheirOwnExceptions() {
        InvalidArgumentException bad = assertThrows(InvalidArgumentException.class, () -> pq.sinkOffsets("args")
                .commit(List.of(new SinkOffsets.Move("t", 0, null, 1), new SinkOffsets.Move("t", 0, null, 2))));
        assertTrue(bad.getMessage().contains("each topic partition may appear once"), bad.getMessage());

        PgQue.using(db.as(OWNER)).sinkOffsets("owned").commit(List.of(new SinkOffsets.Move("t", 0, null, 1)));
        PermissionDeniedException denied = assertThrows(PermissionDeniedException.class,
                () -> PgQue.using(db.as(OTHER)).sinkOffsets("owned").reset());
        assertEquals("42501", denied.sqlState());
        assertEquals(List.of(new SinkOffsets.Stored("t", 0, 1)), pq.sinkOffsets("owned").read());
    }

    @Test
    void manyPartitionsGoInOneCall() {
        SinkOffsets.Move[] moves = new SinkOffsets.Move[500];
        for (int p = 0; p < moves.length; p++) {
            moves[p] = new SinkOffsets.Move("wide", p, null, p + 1L);
        }
        pq.sinkOffsets("wide").commit(Arrays.asList(moves));
        List<SinkOffsets.Stored> stored = pq.sinkOffsets("wide").read();
        assertEquals(500, stored.size());
        assertEquals(new SinkOffsets.Stored("wide", 499, 500), stored.get(499));
    }
}
