/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import static io.pgque.client.ClientTesting.tick;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.testsupport.Await;
import io.pgque.testing.EmbeddedPg;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ReadAheadGroup}: one scan of a window serves the next batch of every slot of the group
 * that the engine hands the same ticks, with exactly the events, in the order and under the batch
 * ids a read of each slot alone gives, retried events of each slot included. The worker runs
 * as a login role holding only {@code pgque_reader}, as the source connector does.
 */
class ReadAheadGroupIT {

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final int N = 4;
    private static final List<Integer> ALL = List.of(0, 1, 2, 3);

    private static EmbeddedPg.TestDatabase db;
    private static PgQue admin;
    private static PgQue reader;

    @BeforeAll
    static void setUp() {
        db = ClientTesting.newDatabase("client_read_ahead_group").installEngine();
        admin = PgQue.using(db.superuser());
        ClientTesting.loginRole(db.superuser(), "client_it_reader", "pgque_reader");
        reader = PgQue.using(db.as("client_it_reader"));
    }

    /** A consumer of N slots all leased by one worker, and each slot's open batch. */
    private record Worker(SlotConsumer consumer, Map<Integer, Batch> first) {

        Map<Integer, Long> open() {
            Map<Integer, Long> ids = new HashMap<>();
            first.forEach((slot, batch) -> ids.put(slot, batch.batchId()));
            return ids;
        }
    }

    /** A queue with a consumer of N slots all leased by one worker, each slot's first batch open. */
    private static Worker firstBatchesOpen(String q) {
        admin.queues().create(q);
        SlotConsumer w = reader.slotConsumer(q, "g", N, "w").catchingUp(100_000);
        admin.slotConsumer(q, "g", N, "setup").subscribe();
        sendKeyed(q, "first", 40);
        tick(admin, q);
        Map<Integer, Batch> first = new HashMap<>();
        for (int slot : ALL) {
            w.slot(slot).claim(TTL).orElseThrow();
            first.put(slot, w.slot(slot).receive().orElseThrow());
        }
        return new Worker(w, first);
    }

    /** {@link #firstBatchesOpen}, and {@code events} more events in the tick after. */
    private static Worker openFirstBatches(String q, int events) {
        Worker worker = firstBatchesOpen(q);
        sendKeyed(q, "second", events);
        tick(admin, q);
        return worker;
    }

    private static void sendKeyed(String q, String prefix, int events) {
        ClientTesting.sendKeyed(admin, q, prefix, events);
    }

    /** What a read of each slot alone gives: payloads in order. */
    private static List<String> payloads(ReadAhead ahead) {
        return ahead.batch().first().messages().stream().map(Message::payload).toList();
    }

    @Test
    void oneScanServesTheNextBatchOfEverySlotAsAReadOfEachAloneWould() {
        String q = "q_group_shared";
        Worker worker = openFirstBatches(q, 200);
        SlotConsumer w = worker.consumer();
        Map<Integer, Long> open = worker.open();
        Map<Integer, ReadAhead> alone = new HashMap<>();
        for (int slot : ALL) {
            alone.put(slot, w.slot(slot).readAheadPage(open.get(slot), 1_000).orElseThrow());
        }

        ReadAheadGroup group = w.readAheadGroup(ALL);
        int total = 0;
        for (int slot : ALL) {
            ReadAhead shared = group.readAheadPage(slot, open.get(slot), 1_000).orElseThrow();
            assertEquals(payloads(alone.get(slot)), payloads(shared), "slot " + slot);
            assertEquals(alone.get(slot).fromTick(), shared.fromTick());
            assertEquals(alone.get(slot).toTick(), shared.toTick());
            assertFalse(shared.batch().first().full());
            assertFalse(alone.get(slot).shared(), "a read alone scans for itself");
            assertEquals(slot != ALL.get(0), shared.shared(), "only the first slot's read scans");
            for (Message m : shared.batch().first().messages()) {
                assertEquals(shared.batchId(), m.batchId(), "each event carries its own slot's batch id");
                assertEquals(slot, w.slotOf(m.partitionKey()));
            }
            total += shared.batch().first().messages().size();
            assertTrue(w.slot(slot).afterAck(open.get(slot)).open(shared), "opened as read");
            assertEquals(payloads(shared), w.slot(slot).receive().orElseThrow().messages().stream()
                    .map(Message::payload).toList(), "the batch opened holds what was read ahead");
        }
        assertEquals(200, total, "every event once, in its own slot");
        assertEquals(1, group.scanned(), "one scan for the four slots");
        assertEquals(3, group.served(), "the other three served from it");
    }

    @Test
    void theFirstBatchesOfSlotsWithNoneOpenShareOneScan() {
        String q = "q_group_first";
        admin.queues().create(q);
        SlotConsumer w = reader.slotConsumer(q, "g", N, "w").catchingUp(100_000);
        admin.slotConsumer(q, "g", N, "setup").subscribe();
        sendKeyed(q, "first", 200);
        tick(admin, q);
        sendKeyed(q, "second", 40);
        tick(admin, q);
        for (int slot : ALL) {
            w.slot(slot).claim(TTL).orElseThrow();
        }

        ReadAheadGroup group = w.readAheadGroup(ALL);
        List<Long> ids = new java.util.ArrayList<>();
        int total = 0;
        for (int slot : ALL) {
            ReadAhead first = group.readFirstPage(slot, 1_000).orElseThrow();
            assertEquals(slot != ALL.get(0), first.shared(), "only the first slot's read scans");
            List<Message> messages = first.batch().first().messages();
            for (int i = 0; i < messages.size(); i++) {
                Message m = messages.get(i);
                assertEquals(slot, w.slotOf(m.partitionKey()));
                assertEquals(first.batchId(), m.batchId());
                assertTrue(i == 0 || messages.get(i - 1).msgId() < m.msgId(), "in event order");
            }
            total += messages.size();
            assertTrue(w.slot(slot).open(first), "opened as read");
            assertTrue(group.readFirstPage(slot, 1_000).isEmpty(), "a slot with an open batch has no first batch");
            Batch opened = w.slot(slot).receive().orElseThrow();
            assertEquals(first.batchId(), opened.batchId());
            assertEquals(payloads(first), opened.messages().stream().map(Message::payload).toList(),
                    "the batch opened holds what was read");
            w.slot(slot).ack();
            ids.add(first.batchId());
        }
        assertEquals(240, total, "both ticks in one window (catching up), every event once, in its own slot");
        assertEquals(1, group.scanned());
        assertEquals(3, group.served());
        assertEquals(4, Set.copyOf(ids).size(), "a batch id each");
    }

    @Test
    void aFirstBatchIsNotOpenedOnceTheSlotMoved() {
        String q = "q_group_first_moved";
        admin.queues().create(q);
        SlotConsumer w = reader.slotConsumer(q, "g", N, "w");
        admin.slotConsumer(q, "g", N, "setup").subscribe();
        sendKeyed(q, "first", 80);
        tick(admin, q);
        w.slot(0).claim(TTL).orElseThrow();
        w.slot(1).claim(TTL).orElseThrow();
        ReadAheadGroup group = w.readAheadGroup(List.of(0, 1));
        ReadAhead first = group.readFirstPage(0, 1_000).orElseThrow();
        Batch received = w.slot(0).receive().orElseThrow();
        w.slot(0).ack();
        assertFalse(w.slot(0).open(first), "the slot has moved past the window read");
        assertTrue(w.slot(0).receive().isEmpty(), "and nothing was opened");
        assertEquals(payloads(first), received.messages().stream().map(Message::payload).toList());
        ReadAhead firstOfOne = group.readFirstPage(1, 1_000).orElseThrow();
        Slot elsewhere = reader.slotConsumer(q, "g", N, "other").slot(1);
        assertThrows(SlotFencedException.class, () -> elsewhere.open(firstOfOne), "only the slot's leaseholder opens");
        assertTrue(w.slot(1).open(firstOfOne));
    }

    @Test
    void aRetriedEventComesWithItsOwnSlotOnly() {
        String q = "q_group_retry";
        Worker worker = firstBatchesOpen(q);
        SlotConsumer w = worker.consumer();
        Map<Integer, Batch> first = worker.first();
        Message retried = first.get(1).messages().get(0);
        w.slot(1).nack(retried, Duration.ZERO, "later");
        admin.operations().maintRetryEvents();
        sendKeyed(q, "second", 40);
        tick(admin, q);

        ReadAheadGroup group = w.readAheadGroup(ALL);
        Map<Integer, ReadAhead> shared = new HashMap<>();
        for (int slot : ALL) {
            shared.put(slot, group.readAheadPage(slot, first.get(slot).batchId(), 1_000).orElseThrow());
            assertEquals(payloads(w.slot(slot).readAheadPage(first.get(slot).batchId(), 1_000).orElseThrow()),
                    payloads(shared.get(slot)), "slot " + slot);
        }
        assertEquals(3, group.served());
        List<Message> slot1 = shared.get(1).batch().first().messages();
        assertTrue(slot1.stream().anyMatch(m -> m.msgId() == retried.msgId() && m.retryCount() == 1),
                "the retry is in its slot's next batch: " + slot1);
        for (int slot : List.of(0, 2, 3)) {
            assertTrue(shared.get(slot).batch().first().messages().stream().noneMatch(m -> m.msgId() == retried.msgId()),
                    "slot " + slot);
        }
    }

    @Test
    void aSlotHandedOtherTicksScansForItself() {
        String q = "q_group_ticks";
        Worker worker = openFirstBatches(q, 40);
        SlotConsumer w = worker.consumer();
        Map<Integer, Long> open = worker.open();
        ReadAheadGroup group = w.readAheadGroup(List.of(0, 1));
        ReadAhead zero = group.readAheadPage(0, open.get(0), 1_000).orElseThrow();
        sendKeyed(q, "third", 40);
        tick(admin, q);
        ReadAhead one = group.readAheadPage(1, open.get(1), 1_000).orElseThrow();
        assertTrue(one.toTick() > zero.toTick(), "slot 1 is handed the newer tick too");
        assertEquals(0, group.served());
        assertEquals(2, group.scanned());
        assertEquals(payloads(w.slot(1).readAheadPage(open.get(1), 1_000).orElseThrow()), payloads(one));
        assertTrue(payloads(one).stream().anyMatch(p -> p.startsWith("third-")), "it holds the newer tick's events");
    }

    @Test
    void pagesLargerThanAsked() {
        String q = "q_group_pages";
        Worker worker = openFirstBatches(q, 200);
        SlotConsumer w = worker.consumer();
        Map<Integer, Long> open = worker.open();
        ReadAheadGroup group = w.readAheadGroup(ALL);
        for (int slot : ALL) {
            ReadAhead shared = group.readAheadPage(slot, open.get(slot), 5).orElseThrow();
            ReadAhead alone = w.slot(slot).readAheadPage(open.get(slot), 5).orElseThrow();
            assertEquals(payloads(alone), payloads(shared), "the first five in order, slot " + slot);
            assertTrue(shared.batch().first().full());
            assertNull(shared.batch().rest());
        }
        assertEquals(0, group.scanned(), "each slot holds more than a page: its scan stops at the limit");
    }

    /**
     * A slot with more events than the page, where the group's scan stayed under its limit: its
     * batch comes whole, since the scan read all of it, rather than a page whose rest would scan
     * the window again.
     */
    @Test
    void aSlotLargerThanThePageComesWholeFromTheGroupsScan() {
        String q = "q_group_skewed";
        Worker worker = firstBatchesOpen(q);
        SlotConsumer w = worker.consumer();
        Map<Integer, Long> open = worker.open();
        String busy = java.util.stream.IntStream.range(0, 1_000).mapToObj(i -> "busy-" + i)
                .filter(k -> w.slotOf(k) == 0).findFirst().orElseThrow();
        List<Event> events = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            events.add(Event.of("t", "skewed-" + i).withPartitionKey(busy));
        }
        admin.producer().sendBatch(q, events);
        tick(admin, q);

        ReadAheadGroup group = w.readAheadGroup(ALL);
        ReadAhead shared = group.readAheadPage(0, open.get(0), 10).orElseThrow();
        assertEquals(1, group.scanned(), "30 rows under the limit of 4 slots x 11");
        assertFalse(shared.batch().first().full(), "whole");
        assertNull(shared.batch().rest());
        assertEquals(java.util.stream.IntStream.range(0, 30).mapToObj(i -> "skewed-" + i).toList(), payloads(shared));
        ReadAhead alone = w.slot(0).readAheadPage(open.get(0), 10).orElseThrow();
        assertTrue(alone.batch().first().full(), "a slot's own read still stops at its page");
        assertEquals(payloads(shared).subList(0, 10), payloads(alone));
    }

    /**
     * Two groups of one sharing (two workers of one process, as two tasks of a connector in one
     * Connect worker) share their scans: one group's scan of a window reads for the other's slots
     * too, and the other, handed the same window while that scan runs, waits for it rather than
     * scanning too. The scan is held on a lock of the event table until the second group waits.
     */
    @Test
    void groupsOfOneSharingShareTheirScansAndWaitForOneAnother() throws Exception {
        String q = "q_group_scope";
        admin.queues().create(q);
        SlotConsumer a = reader.slotConsumer(q, "g", N, "task-a");
        SlotConsumer b = reader.slotConsumer(q, "g", N, "task-b");
        admin.slotConsumer(q, "g", N, "setup").subscribe();
        sendKeyed(q, "first", 200);
        tick(admin, q);
        for (int slot : ALL) {
            (slot < 2 ? a : b).slot(slot).claim(TTL).orElseThrow();
        }
        ScanSharing shared = new ScanSharing("db");
        ScanSharing anotherDb = new ScanSharing("another db");
        ReadAheadGroup groupA = a.readAheadGroup(List.of(0, 1), shared);
        ReadAheadGroup groupB = b.readAheadGroup(List.of(2, 3), shared);
        ReadAheadGroup elsewhere = b.readAheadGroup(List.of(2, 3), anotherDb);
        Map<Integer, ReadAhead> read = new java.util.concurrent.ConcurrentHashMap<>();
        try (java.sql.Connection lock = db.superuser().getConnection()) {
            lock.setAutoCommit(false);
            try (java.sql.Statement st = lock.createStatement()) {
                java.sql.ResultSet rs = st.executeQuery("select queue_data_pfx from pgque.queue where queue_name = '" + q + "'");
                rs.next();
                st.execute("lock table " + rs.getString(1) + " in access exclusive mode");
            }
            Thread scanning = new Thread(() -> read.put(0, groupA.readFirstPage(0, 1_000).orElseThrow()));
            scanning.start();
            Await.until("the first group's scan to wait on the lock", Duration.ofSeconds(20), () -> waitingOnALock() == 1);
            Thread waiting = new Thread(() -> read.put(2, groupB.readFirstPage(2, 1_000).orElseThrow()));
            waiting.start();
            Await.until("the second group to wait for the first one's scan", Duration.ofSeconds(20),
                    () -> java.util.Arrays.stream(waiting.getStackTrace())
                            .anyMatch(f -> f.getMethodName().equals("awaitScan")));
            assertEquals(1, waitingOnALock(), "the second group does not scan");
            lock.rollback();
            scanning.join(30_000);
            waiting.join(30_000);
        }
        read.put(1, groupA.readFirstPage(1, 1_000).orElseThrow());
        read.put(3, groupB.readFirstPage(3, 1_000).orElseThrow());
        assertEquals(1, groupA.scanned(), "one scan for the four slots of both groups");
        assertEquals(3, groupB.served());
        int total = 0;
        for (int slot : ALL) {
            assertEquals(slot != 0, read.get(slot).shared(), "slot " + slot);
            for (Message m : read.get(slot).batch().first().messages()) {
                assertEquals(slot, a.slotOf(m.partitionKey()));
            }
            total += read.get(slot).batch().first().messages().size();
        }
        assertEquals(200, total);

        ReadAhead apart = elsewhere.readFirstPage(3, 1_000).orElseThrow();
        assertFalse(apart.shared(), "a group of another sharing scans for itself");
        assertEquals(payloads(read.get(3)), payloads(apart));
        assertEquals(1, elsewhere.scanned());
        assertEquals(1, groupA.scanned(), "and leaves the sharing's windows alone");

        groupA.clear();
        groupB.clear();
        groupB.clear();
        ReadAheadGroup again = a.readAheadGroup(List.of(0, 1), shared);
        assertEquals(0, again.scanned(), "the last group to leave dropped the sharing's windows");
        again.clear();
        elsewhere.clear();
        assertTrue(shared.isEmpty());
        assertTrue(anotherDb.isEmpty());
    }

    private static long waitingOnALock() {
        try (java.sql.Connection c = db.superuser().getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("select count(*) from pg_stat_activity "
                     + "where wait_event_type = 'Lock' and datname = current_database()")) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What a sharing's groups still read shows per N until the last group of that N is cleared, and
     * only for its own queue and consumer: a reader's owner can check it gave them back; once closed, it takes no new group.
     */
    @Test
    void theSlotsASharingStillReadsShowUntilTheirGroupsAreClearedAndAClosedOneTakesNoGroup() {
        String q = "q_group_shared_slots";
        ScanSharing db = new ScanSharing("db");
        ScanSharing anotherDb = new ScanSharing("another db");
        SlotConsumer four = reader.slotConsumer(q, "g", N, "task-a");
        SlotConsumer two = reader.slotConsumer(q, "g", 2, "task-a");
        ReadAheadGroup low = four.readAheadGroup(List.of(0, 1), db);
        ReadAheadGroup high = reader.slotConsumer(q, "g", N, "task-b").readAheadGroup(List.of(2, 3), db);
        ReadAheadGroup again = four.readAheadGroup(List.of(1, 2), db);
        ReadAheadGroup halves = two.readAheadGroup(List.of(0, 1), db);
        ReadAheadGroup elsewhere = four.readAheadGroup(List.of(0, 1), anotherDb);
        ReadAheadGroup unshared = four.readAheadGroup(List.of(0, 1));
        assertEquals(Map.of(N, Set.of(0, 1, 2, 3), 2, Set.of(0, 1)), db.joined(q, "g"));
        assertEquals(Map.of(N, Set.of(0, 1)), anotherDb.joined(q, "g"));
        assertEquals(Map.of(), db.joined(q, "other"));

        low.clear();
        assertEquals(Map.of(N, Set.of(1, 2, 3), 2, Set.of(0, 1)), db.joined(q, "g"),
                "slot 1 is still read by another group");
        db.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> four.readAheadGroup(List.of(3), db));
        assertTrue(closed.getMessage().contains("ScanSharing{db} is closed"), closed.getMessage());
        assertEquals(Map.of(N, Set.of(1, 2, 3), 2, Set.of(0, 1)), db.joined(q, "g"),
                "the groups still joined read on through a closed sharing");
        halves.clear();
        high.clear();
        again.clear();
        assertEquals(Map.of(), db.joined(q, "g"), "the last groups took their N's windows");
        assertTrue(db.isEmpty());
        elsewhere.clear();
        unshared.clear();
        assertTrue(anotherDb.isEmpty());
    }

    @Test
    void slotsOutsideTheGroupOrTheConsumerAreRefused() {
        SlotConsumer w = reader.slotConsumer("q_group_refused", "g", N, "w");
        assertThrows(IllegalArgumentException.class, () -> w.readAheadGroup(List.of(0, 4)));
        assertThrows(IllegalArgumentException.class, () -> w.readAheadGroup(ALL.subList(0, 2)).readAheadPage(3, 1, 10));
        assertEquals(List.of(0, 2), w.readAheadGroup(Set.of(2, 0)).slots());
    }

}
