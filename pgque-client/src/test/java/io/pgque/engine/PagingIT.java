/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read_batch addition (ENGINE.md decision 5, sql-reference "Consuming"): a batch larger than
 * receive's max_return can be read completely in pages before it is acked, so nobody acks events
 * they have not seen.
 */
class PagingIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("paging").installEngine().superuser());
    }

    private static String[] payloads(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).toArray(String[]::new);
    }

    /** receive(1000), then read_batch pages after the last msg_id seen until a short page. */
    private static List<Msg> readWholeBatch(String q, String c, int page) {
        List<Msg> first = sql.receive(q, c, page);
        List<Msg> all = new ArrayList<>(first);
        List<Msg> last = first;
        int pages = 0;
        while (last.size() == page) {
            assertTrue(++pages < 1000, "paging does not end");
            long after = last.get(last.size() - 1).msgId();
            last = sql.readBatch(first.get(0).batchId(), after, page);
            for (Msg m : last) {
                assertEquals(first.get(0).batchId(), m.batchId(), "page rows carry the batch id");
            }
            all.addAll(last);
        }
        return all;
    }

    @Test
    void batchLargerThanMaxReturnIsReadCompletelyInPagesInOrder() {
        String q = "paging";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        String[] payloads = payloads("p", 2500);
        List<Long> sent = sql.sendBatch(q, payloads);
        sql.tick(q);

        List<Msg> first = sql.receive(q, "c", 1000);
        assertEquals(1000, first.size(), "receive returns max_return events");
        List<Msg> all = readWholeBatch(q, "c", 1000);
        assertEquals(2500, all.size(), "every event exactly once");
        assertEquals(new TreeSet<>(sent), new TreeSet<>(all.stream().map(Msg::msgId).toList()));
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i - 1).msgId() < all.get(i).msgId(), "pages continue in msg_id order at " + i);
        }
        // ids and payloads still belong together after paging
        for (Msg m : all) {
            assertEquals(payloads[sent.indexOf(m.msgId())], m.payload());
        }
        assertEquals(1, sql.ack(first.get(0).batchId()));
        assertTrue(sql.drain(q, "c").isEmpty(), "nothing left after the ack");
    }

    @Test
    void readBatchWithoutAfterIdStartsAtTheBeginningAndAnExactMultipleEndsWithAnEmptyPage() {
        String q = "paging_exact";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> sent = sql.sendBatch(q, payloads("x", 20));
        sql.tick(q);

        List<Msg> head = sql.receive(q, "c", 10);
        long batch = head.get(0).batchId();
        assertEquals(head, sql.readBatch(batch, null, 10), "read_batch(batch, NULL) = the first page");
        List<Msg> p2 = sql.readBatch(batch, head.get(9).msgId(), 10);
        assertEquals(sent.subList(10, 20), p2.stream().map(Msg::msgId).sorted().toList());
        assertEquals(List.of(), sql.readBatch(batch, p2.get(9).msgId(), 10), "after the last event: empty page");
        assertEquals(1, sql.ack(batch));
    }

    @Test
    void readBatchOfAFinishedOrUnknownBatchRaisesPQ003() {
        String q = "paging_gone";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        sql.send(q, "one");
        sql.tick(q);
        long batch = sql.receive(q, "c", 10).get(0).batchId();
        assertEquals(1, sql.ack(batch));

        Sql.expectSqlState("PQ003", () -> sql.readBatch(batch, null, 10));
        Sql.expectSqlState("PQ003", () -> sql.readBatch(987_654_321L, null, 10));
    }
}
