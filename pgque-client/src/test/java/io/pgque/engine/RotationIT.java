package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ENGINE.md 1.9: rotation truncates the oldest event table only once every consumer is past it.
 * A slow consumer pins rotation; it must never lose events it has not received yet.
 */
class RotationIT {

    private static Sql sql;

    @BeforeAll
    static void installEngine() {
        sql = new Sql(EmbeddedPg.newDatabase("rotation").installEngine().superuser());
    }

    private static int curTable(String q) {
        return (int) sql.oneLong("select queue_cur_table from pgque.get_queue_info(?)", q);
    }

    /** One rotation attempt: step 1 and step 2, each in its own transaction. */
    private static void rotateSteps(String q) {
        sql.exec("select pgque.maint_rotate_tables_step1(?)", q);
        sql.exec("select pgque.maint_rotate_tables_step2()");
    }

    /** Attempts rotation (ticking and draining the fast consumer) until the active table changes. */
    private static boolean rotatesWithin(String q, Duration timeout, String... drainedConsumers) {
        int before = curTable(q);
        return Sql.await(timeout, Duration.ofMillis(100), () -> {
            sql.tick(q);
            for (String c : drainedConsumers) {
                sql.drain(q, c);
            }
            rotateSteps(q);
            return curTable(q) != before;
        });
    }

    @Test
    void slowConsumerPinsRotationAndLosesNothingThenRotationResumes() {
        String q = "rot";
        sql.createQueue(q);
        sql.subscribe(q, "fast");
        sql.subscribe(q, "slow");
        sql.config(q, "rotation_period", "1 second");
        assertEquals(3, sql.oneLong("select queue_ntables from pgque.get_queue_info(?)", q));

        // Phase 1: both consumers keep up, so rotation happens once the period has passed.
        List<Long> first = sql.sendBatch(q, "a1", "a2", "a3");
        sql.tick(q);
        assertEquals(first, sql.drain(q, "slow").stream().map(Msg::msgId).toList());
        int t0 = curTable(q);
        assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "fast", "slow"),
                "with every consumer caught up, rotation must happen");
        int t1 = curTable(q);
        assertNotEquals(t0, t1);

        // Phase 2: the slow consumer stops. Events go to the new active table; keep producing,
        // ticking, draining the fast consumer and attempting rotation for more than ntables
        // rotation periods: an engine that ignored the slow cursor would have truncated every
        // table by then, including the one holding the slow consumer's backlog.
        List<Long> backlog = new ArrayList<>(sql.sendBatch(q, "b1", "b2", "b3"));
        sql.tick(q);
        sql.drain(q, "fast");
        long until = System.nanoTime() + Duration.ofMillis(4_500).toNanos();
        int attempts = 0;
        while (System.nanoTime() < until) {
            backlog.add(sql.send(q, "c" + attempts));
            sql.tick(q);
            sql.drain(q, "fast");
            rotateSteps(q);
            attempts++;
            assertEquals(t1, curTable(q), "rotation must be skipped while the slow consumer needs the previous table"
                    + " (attempt " + attempts + ")");
            pause(150); // pace the loop: the window itself (several rotation periods) is what is tested
        }
        assertTrue(attempts >= 4, "enough rotation attempts: " + attempts);

        // The slow consumer finally reads everything it was owed, once, in order.
        List<Long> slowGot = sql.drain(q, "slow").stream().map(Msg::msgId).toList();
        assertEquals(backlog.size(), slowGot.size(), "every backlog event exactly once");
        assertEquals(new TreeSet<>(backlog), new TreeSet<>(slowGot));
        assertEquals(backlog.size(), storedRowsOf(q, backlog), "no backlog row was truncated");

        // Phase 3: with everyone past, rotation resumes.
        assertTrue(rotatesWithin(q, Duration.ofSeconds(10), "fast", "slow"),
                "once all consumers are past, rotation must happen again");
        assertNotEquals(t1, curTable(q));
    }

    /** How many of {@code ids} are still stored in the queue's event tables. */
    private static long storedRowsOf(String q, List<Long> ids) {
        String pfx = sql.one(String.class, "select queue_data_pfx from pgque.queue where queue_name = ?", q);
        return sql.oneLong("select count(distinct ev_id) from " + pfx + " where ev_id = any(?::bigint[])",
                (Object) ids.stream().map(String::valueOf).toArray(String[]::new));
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
