/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The send_events addition (ENGINE.md decision 5, sql-reference "Producing"): one round trip for a
 * batch where each event has its own type, payload, partition key and extras; ids aligned with the
 * input positions.
 */
class SendEventsIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("sendevents").installEngine().superuser());
    }

    private static Map<Long, Msg> byId(List<Msg> msgs) {
        return msgs.stream().collect(Collectors.toMap(Msg::msgId, Function.identity()));
    }

    @Test
    void everyFieldRoundTripsAndIdsAreAlignedWithInputPositions() {
        String q = "se_fields";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        String[] types = {"created", "updated", null, "deleted"};
        String[] payloads = {"{\"a\":1}", "plain text", "", "{ \"spacing\" :  kept }"};
        String[] keys = {"tenant-a", "tenant-b", null, "tenant-a"};
        String[] x2 = {"idem-1", null, "idem-3", "idem-4"};
        String[] x3 = {"h3-0", "h3-1", "h3-2", null};
        String[] x4 = {null, "h4-1", "h4-2", "h4-3"};

        List<Long> ids = sql.longArray("select pgque.send_events(?::text, ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[])",
                q, types, payloads, keys, x2, x3, x4);
        assertEquals(4, ids.size());
        assertEquals(4, new HashSet<>(ids).size(), "distinct ids");
        sql.tick(q);
        Map<Long, Msg> got = byId(sql.drain(q, "c"));
        assertEquals(new HashSet<>(ids), got.keySet(), "exactly the returned ids were delivered");

        for (int i = 0; i < ids.size(); i++) {
            Msg m = got.get(ids.get(i));
            String at = "position " + i;
            assertEquals(types[i] == null ? "default" : types[i], m.type(), at + " type (NULL means default)");
            assertEquals(payloads[i], m.payload(), at + " payload, stored verbatim");
            assertEquals(keys[i], m.extra1(), at + " partition key in extra1");
            assertEquals(x2[i], m.extra2(), at + " extra2");
            assertEquals(x3[i], m.extra3(), at + " extra3");
            assertEquals(x4[i], m.extra4(), at + " extra4");
            assertNull(m.retryCount());
        }
    }

    @Test
    void nullOptionalArraysMeanNullForEveryEventAndALargeBatchStaysAligned() {
        String q = "se_large";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        int n = 1000;
        String[] types = IntStream.range(0, n).mapToObj(i -> "t" + (i % 7)).toArray(String[]::new);
        String[] payloads = IntStream.range(0, n).mapToObj(i -> "payload-" + i).toArray(String[]::new);

        List<Long> ids = sql.longArray("select pgque.send_events(?::text, ?::text[], ?::text[])", q, types, payloads);
        assertEquals(n, ids.size());
        sql.tick(q);
        Map<Long, Msg> got = byId(sql.drain(q, "c"));
        assertEquals(n, got.size());
        for (int i = 0; i < n; i++) {
            Msg m = got.get(ids.get(i));
            assertEquals(payloads[i], m.payload(), "id at position " + i + " belongs to payload " + i);
            assertEquals(types[i], m.type());
            assertNull(m.extra1());
            assertNull(m.extra2());
            assertNull(m.extra3());
            assertNull(m.extra4());
        }
    }

    @Test
    void nullPayloadElementIsStoredAsNull() {
        String q = "se_null_elem";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> ids = sql.longArray("select pgque.send_events(?::text, null, ?::text[])", q, new String[] {"x", null});
        sql.tick(q);
        Map<Long, Msg> got = byId(sql.drain(q, "c"));
        assertEquals("x", got.get(ids.get(0)).payload());
        assertNull(got.get(ids.get(1)).payload());
        assertEquals("default", got.get(ids.get(1)).type());
    }

    @Test
    void emptyArrayReturnsEmptyAndInsertsNothing() {
        String q = "se_empty";
        sql.createQueue(q);
        sql.subscribe(q, "c");
        List<Long> ids = sql.longArray("select pgque.send_events(?::text, ?::text[], ?::text[])", q, new String[0], new String[0]);
        assertEquals(List.of(), ids, "'{}' (not NULL)");
        List<Long> ids2 = sql.longArray("select pgque.send_events(?::text, null, ?::text[])", q, new String[0]);
        assertEquals(List.of(), ids2);
        assertEquals(0, sql.storedEvents(q));
        sql.tick(q);
        assertTrue(sql.drain(q, "c").isEmpty());
    }
}
