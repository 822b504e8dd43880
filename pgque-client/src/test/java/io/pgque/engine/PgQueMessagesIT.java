/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

import io.pgque.testing.EmbeddedPg;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.util.PSQLException;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15 item 2: where PgQue raises an error this engine raises too, the message is PgQue's
 * exact text (ENGINE-messages.md), so clients that compare messages keep working, while the
 * SQLSTATE stays this engine's own (sql-reference "Errors"). A PgQue text that continues with a
 * second literal is checked as a prefix, ending with the space where PgQue's continuation starts.
 * {@code {name}} placeholders stand for ids made by the set-up.
 */
class PgQueMessagesIT {

    private static final String Q = "m_q";
    private static Sql sql;
    private static final Map<String, String> IDS = new HashMap<>();

    @BeforeAll
    static void setUp() {
        sql = new Sql(EmbeddedPg.newDatabase("messages").installEngine().superuser());
        sql.createQueue(Q);
        sql.subscribe(Q, "c");
        sql.exec("select pgque.subscribe_partitioned(?, 'pc', 2)", Q);
        sql.exec("select pgque.subscribe_partitioned(?, 'pc2', 2)", Q);
        sql.exec("select pgque.unsubscribe_slot(?, 'pc2', 1)", Q);
        sql.send(Q, "event"); // NULL partition key: slot 0
        sql.tick(Q);
        IDS.put("batch", String.valueOf(sql.oneLong("select pgque.next_batch(?, 'c')", Q)));
        sql.exec("select pgque.claim_slot(?, 'pc', 0, 'w1')", Q);
        sql.exec("select pgque.claim_slot(?, 'pc', 1, 'w1')", Q);
        IDS.put("slot_batch", String.valueOf(sql.oneLong(
                "select batch_id from pgque.receive_partitioned(?, 'pc', 0, 2, 'w1') limit 1", Q)));

        sql.createQueue("m_paused");
        sql.config("m_paused", "ticker_paused", "true");
        sql.createQueue("m_ext");
        sql.config("m_ext", "external_ticker", "true");
        sql.createQueue("m_ext_paused");
        sql.config("m_ext_paused", "external_ticker", "true");
        sql.config("m_ext_paused", "ticker_paused", "true");
        sql.createQueue("m_closed");
        sql.config("m_closed", "disable_insert", "true");
        sql.createQueue("m_noticks");
        sql.exec("delete from pgque.tick where tick_queue = (select queue_id from pgque.queue where queue_name = 'm_noticks')");
        sql.createQueue("m_lost");
        sql.subscribe("m_lost", "gone");
        sql.exec("update pgque.subscription set sub_last_tick = 999999 where sub_queue ="
                + " (select queue_id from pgque.queue where queue_name = 'm_lost')");
        sql.createQueue("m_rot");
        sql.exec("update pgque.queue set queue_switch_step1 = 9000000000000000, queue_switch_step2 = 1,"
                + " queue_switch_time = now() - interval '1 day' where queue_name = 'm_rot'");
        sql.createQueue("m_future");
        sql.exec("update pgque.tick set tick_snapshot = '9000000000:9000000000:'"
                + " where tick_queue = (select queue_id from pgque.queue where queue_name = 'm_future')");
    }

    static Stream<Arguments> messages() {
        return Stream.of(
                // create_queue, drop_queue, set_queue_config
                exact("select pgque.create_queue(null)", "22023", "Invalid NULL value"),
                prefix("select pgque.create_queue(repeat('q', 58))", "22023", "queue name too long: 58 bytes (max 57). "),
                exact("select pgque.drop_queue('nope')", "PQ001", "No such event queue"),
                exact("select pgque.drop_queue('m_q')", "55006", "cannot drop queue, consumers still attached"),
                exact("select pgque.set_queue_config('nope', 'max_retries', '1')", "PQ001", "No such event queue"),
                exact("select pgque.set_queue_config('m_q', null, '1')", "22023", "Invalid NULL value"),
                exact("select pgque.set_queue_config('m_q', 'bogus', '1')", "22023", "cannot change parameter \"bogus\""),
                exact("select pgque.set_queue_config('m_q', 'max_retries', '-1')", "22023",
                        "set_queue_config: max_retries must be >= 0, got -1"),
                exact("select pgque.set_queue_config('m_q', 'ticker_max_count', '0')", "22023",
                        "set_queue_config: ticker_max_count must be > 0, got 0"),
                exact("select pgque.set_queue_config('m_q', 'ticker_max_lag', '0 seconds')", "22023",
                        "set_queue_config: ticker_max_lag must be > 0, got 00:00:00"),
                exact("select pgque.set_queue_config('m_q', 'ticker_idle_period', '0')", "22023",
                        "set_queue_config: ticker_idle_period must be > 0, got 00:00:00"),
                exact("select pgque.set_queue_config('m_q', 'rotation_period', '-1 hour')", "22023",
                        "set_queue_config: rotation_period must be > 0, got -01:00:00"),
                // the ticker
                exact("select pgque.ticker('nope'::text)", "PQ001", "no such queue"),
                exact("select pgque.ticker('m_ext'::text)", "55000", "This queue has external tick source."),
                exact("select pgque.ticker('m_paused'::text)", "55000", "Ticker has been paused for this queue"),
                prefix("select pgque.ticker('m_future'::text)", "XX000",
                        "Invalid PgQ state: old xmin=9000000000, old xmax=9000000000, cur txid="),
                exact("select pgque.ticker('nope', 5, now(), 5)", "PQ001", "queue not found: nope"),
                prefix("select pgque.ticker('m_q', 5, now(), 5)", "55000", "queue m_q is not configured for external ticker "),
                exact("select pgque.ticker('m_ext_paused', 5, now(), 5)", "55000",
                        "queue m_ext_paused is paused (queue_ticker_paused = true)"),
                exact("select pgque.ticker('m_ext', 1, now(), 5)", "22023",
                        "external ticker tick_id must be strictly greater than current max (1 <= 1)"),
                exact("select pgque.ticker('m_ext', 5, now(), 0)", "22023",
                        "external ticker event_seq must be >= previous tick (0 < 1)"),
                exact("select pgque.force_tick('nope')", "PQ001", "queue not found: nope"),
                prefix("select pgque.force_tick('m_ext')", "55000", "queue m_ext is configured for external ticker; "),
                exact("select pgque.force_next_tick('m_paused')", "55000", "queue m_paused is paused (queue_ticker_paused = true)"),
                prefix("select pgque.maint_rotate_tables_step1('m_rot')", "XX000",
                        "queue m_rot maint failure: step1=9000000000000000, current="),
                // producing
                exact("select pgque.send('m_closed', 'x'::text)", "55000", "Insert into queue disallowed"),
                exact("select pgque.insert_event('nope', 't', 'x')", "PQ001", "queue not found: nope"),
                exact("select pgque.send_batch('m_q', null::text[])", "22023", "payloads must not be null"),
                exact("select pgque.send_idem('m_q', 't', 'x'::text, null)", "22023", "idem_key must not be null"),
                exact("select pgque.send_idem_events('m_q', null, array['x'], array[null::text], '1 hour')", "22023",
                        "idem_key must not be null"),
                exact("select pgque.send_idem('nope', 't', 'x'::text, 'k')", "PQ001", "queue not found: nope"),
                exact("select pgque.send_idem('m_q', 't', 'x'::text, 'k', '0 seconds')", "22023", "ttl must be a positive interval"),
                exact("select pgque.current_event_table('nope')", "PQ001", "Event queue not found"),
                exact("select pgque.current_event_table('m_closed')", "55000", "Writing to queue disabled"),
                // consuming
                exact("select pgque.subscribe('nope', 'c')", "PQ001", "Event queue not created yet"),
                exact("select pgque.subscribe('m_noticks', 'c')", "55000", "No ticks for this queue.  Please run ticker on database."),
                exact("select pgque.register_consumer_at('m_q', 'c2', 999999)", "22023", "cannot reposition, tick not found: 999999"),
                exact("select pgque.subscribe('m_q', 'a#b')", "22023", "consumer name must not contain the reserved character #: a#b"),
                exact("select * from pgque.receive('m_q', 'c', 0)", "22023", "pgque.receive: max_return must be >= 1, got 0"),
                exact("select * from pgque.receive('m_q', 'pc#0/2', 10)", "PQ009",
                        "consumer pc#0/2 is a partition slot consumer; use pgque.receive_partitioned()"),
                exact("select * from pgque.receive('m_lost', 'gone', 10)", "XX000",
                        "PgQ corruption: Consumer gone on queue m_lost does not see tick 999999"),
                exact("select pgque.ack({slot_batch})", "PQ009",
                        "batch {slot_batch} belongs to partition slot consumer pc#0/2; use pgque.ack_partitioned()"),
                exact("select pgque.nack({slot_batch}, row(1, {slot_batch}, 't', 'x', null, now(), null, null, null, null)::pgque.message)",
                        "PQ009", "batch {slot_batch} belongs to partition slot consumer pc#0/2; retry slot batches via pgque.nack_partitioned()"),
                exact("select pgque.nack(-1, row(1, -1, 't', 'x', null, now(), null, null, null, null)::pgque.message)",
                        "PQ003", "batch not found: -1"),
                exact("select pgque.nack({batch}, row(999999, {batch}, 't', 'x', null, now(), null, null, null, null)::pgque.message)",
                        "PQ008", "msg_id 999999 not found in batch {batch}"),
                exact("select pgque.event_retry({batch}, 999999, 0)", "PQ008", "event not found"),
                exact("select pgque.batch_retry(-1, 0)", "PQ003", "batch_retry: batch -1 not found"),
                exact("select pgque.dlq_replay(-1)", "22023", "dead letter entry not found: -1"),
                // partitioned consumers
                exact("select pgque.subscribe_slot('', 'x', 0, 2)", "22023", "queue name must not be empty"),
                exact("select pgque.subscribe_slot('m_q', '', 0, 2)", "22023", "consumer name must not be empty"),
                exact("select pgque.subscribe_slot('m_q', 'a#b', 0, 2)", "22023", "partitioned consumer name must not contain #: a#b"),
                exact("select pgque.subscribe_slot('nope', 'x', 0, 2)", "PQ001", "queue not found: nope"),
                exact("select pgque.subscribe_slot('m_q', 'x', 5, 2)", "PQ006", "slot 5 out of range for n=2 (valid: 0..1)"),
                exact("select pgque.subscribe_slot('m_q', 'x', 0, 0)", "22023", "slot count n must be >= 1, got 0"),
                exact("select pgque.subscribe_slot('m_q', 'pc', 0, 3)", "PQ006",
                        "consumer pc on queue m_q is pinned to n=2; got n=3 (unsubscribe all slots to change the slot count)"),
                exact("select pgque.claim_slot('m_q', 'pc', 0, '')", "22023", "worker id must not be empty"),
                exact("select pgque.claim_slot('m_q', 'pc', 0, 'w', '0 seconds')", "22023", "lease ttl must be >= 1 second, got 00:00:00"),
                exact("select pgque.claim_slot('m_q', 'nopc', 0, 'w')", "PQ006",
                        "consumer nopc on queue m_q is not a partitioned consumer; call pgque.subscribe_slot() first"),
                exact("select pgque.claim_slot('m_q', 'pc', 7, 'w')", "PQ006", "slot 7 out of range for consumer pc on queue m_q (valid: 0..1)"),
                exact("select pgque.claim_slot('m_q', 'pc2', 1, 'w')", "PQ006",
                        "slot 1 of consumer pc2 on queue m_q is not subscribed; call pgque.subscribe_slot()"),
                exact("select pgque.release_slot('m_q', 'pc2', 1, 'w')", "PQ006",
                        "slot 1 of consumer pc2 on queue m_q is not subscribed; call pgque.subscribe_slot()"),
                exact("select pgque.unsubscribe_slot('m_q', 'pc', 9)", "PQ006", "slot 9 out of range for consumer pc on queue m_q (valid: 0..1)"),
                exact("select * from pgque.receive_partitioned('m_q', 'pc', 0, null, 'w1')", "22023",
                        "queue, consumer, slot, and n must not be null"),
                exact("select * from pgque.receive_partitioned('m_q', 'pc', 0, 3, 'w1')", "PQ006",
                        "wrong slot count for consumer pc on queue m_q: pinned n=2, caller passed n=3"),
                exact("select * from pgque.receive_partitioned('m_q', 'pc2', 0, 2, 'w1')", "PQ005",
                        "slot 0 of consumer pc2 on queue m_q is not leased; call pgque.claim_slot() first"),
                exact("select * from pgque.receive_partitioned('m_q', 'pc', 0, 2, 'w2')", "PQ004",
                        "lease on slot 0 of consumer pc on queue m_q is held by worker w1, not w2; fenced"),
                exact("select * from pgque.receive_partitioned('m_q', 'pc', 0, 2, 'w1', 0)", "22023",
                        "pgque.receive_partitioned: max must be >= 1, got 0"),
                exact("select pgque.nack_partitioned('m_q', 'pc', 1, 2, 'w1', row(1, 1, 't', 'x', null, now(), null, null, null, null)::pgque.message)",
                        "PQ003", "slot 1 of consumer pc on queue m_q has no open batch to nack"),
                // operations
                exact("select pgque.set_tick_period_ms(3)", "22023", "tick_period_ms must be an exact divisor of 1000 between 1 and 1000 (got 3)"),
                prefix("select pgque.start()", "55000", "pg_cron extension is not installed. "));
    }

    private static Arguments exact(String call, String sqlState, String message) {
        return Arguments.of(message, call, sqlState, true);
    }

    private static Arguments prefix(String call, String sqlState, String message) {
        return Arguments.of(message, call, sqlState, false);
    }

    private static String fill(String text) {
        for (Map.Entry<String, String> e : IDS.entrySet()) {
            text = text.replace("{" + e.getKey() + "}", e.getValue());
        }
        return text;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("messages")
    void raisesPgQuesTextWithThisEnginesSqlState(String message, String call, String sqlState, boolean exact) {
        SQLException e = Sql.expectSqlState(sqlState, () -> sql.exec(fill(call)));
        PSQLException server = assertInstanceOf(PSQLException.class, e);
        String text = server.getServerErrorMessage().getMessage();
        if (exact) {
            assertEquals(fill(message), text, call);
        } else {
            assertTrue(text.startsWith(fill(message)), "starts with \"" + fill(message) + "\": " + text);
        }
    }
}
