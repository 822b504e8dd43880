/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.pgque.connect.sink.write.Drafts.pending;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The narrowing logic alone; PutTransactionIT runs it against PostgreSQL savepoints. */
class BisectorTest {

    /** A database stand-in that refuses any statement containing a poisoned offset, all or nothing. */
    private static final class Table {
        final Set<Long> poison;
        final List<Long> written = new ArrayList<>();
        int statements;

        Table(Set<Long> poison) {
            this.poison = poison;
        }

        Optional<String> tryWrite(List<PendingEvent> events) {
            statements++;
            for (PendingEvent event : events) {
                if (poison.contains(event.record().kafkaOffset())) {
                    return Optional.of("poison at " + event.record().kafkaOffset());
                }
            }
            events.forEach(e -> written.add(e.record().kafkaOffset()));
            return Optional.empty();
        }
    }

    private static List<PendingEvent> events(int n) {
        List<PendingEvent> events = new ArrayList<>();
        for (long offset = 0; offset < n; offset++) {
            events.add(pending("q", "t", 0, offset));
        }
        return events;
    }

    @Test
    void aCleanBatchIsOneStatement() {
        Table table = new Table(Set.of());
        assertEquals(List.of(), new Bisector(table::tryWrite).writeAll(events(100)));
        assertEquals(1, table.statements);
        assertEquals(100, table.written.size());
    }

    @Test
    void onlyTheRefusedEventsAreLeftOutAndOrderIsKept() {
        Table table = new Table(Set.of(3L, 64L, 99L));
        List<RejectedEvent> rejected = new Bisector(table::tryWrite).writeAll(events(100));

        assertEquals(List.of(3L, 64L, 99L), rejected.stream().map(r -> r.event().record().kafkaOffset()).toList());
        assertEquals("poison at 64", rejected.get(1).reason());
        List<Long> expected = new ArrayList<>();
        for (long offset = 0; offset < 100; offset++) {
            if (!table.poison.contains(offset)) {
                expected.add(offset);
            }
        }
        assertEquals(expected, table.written, "every good event written once, in offset order");
        assertTrue(table.statements <= 2 * 3 * 7 + 1, "about 2·k·log2(n) statements, not n: " + table.statements);
    }

    @Test
    void aBatchOfOnlyBadEventsRejectsEachOfThem() {
        Table table = new Table(Set.of(0L, 1L, 2L));
        assertEquals(3, new Bisector(table::tryWrite).writeAll(events(3)).size());
        assertEquals(List.of(), table.written);
    }
}
