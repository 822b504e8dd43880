--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Failure paths: retry later, or dead letter once an event has been retried max_retries times.
-- Reader role (the retry mover: ticker role; replaying dead letters: reader and admin).
--
-- Layer: core (README.md). Calls 20_queue.sql, 30_insert.sql and 45_subscription.sql to
-- 50_batch.sql; the modes' nacks and dead letters (52_coop.sql to 59_partition_read_ahead.sql) go
-- through these functions.

-- Hook, filled by 52_coop.sql: the consumer that the dead letters of subscription i_sub (whose
-- sub_role is not 'normal') belong to. The core's: its own consumer.
CREATE OR REPLACE FUNCTION pgque.hook_dead_letter_consumer(i_sub pgque.subscription)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN i_sub.sub_consumer;
END
$$;

-- Hook, filled by 55_partition.sql: the subscriptions (sub_id) of the queue whose due retries
-- the mover must hold back for now. The core holds none back.
CREATE OR REPLACE FUNCTION pgque.hook_retry_held_owners(i_queue_id int4)
RETURNS int4[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN '{}'::int4[];
END
$$;

-- Internal: the canonical copy of one event of an open batch (optionally within a slot), or a
-- PQ008 error. Callers pass only ids; payloads are never taken from the client.
CREATE OR REPLACE FUNCTION pgque.batch_event(i_batch_id bigint, i_ev_id bigint, i_slot int, i_n int)
RETURNS TABLE (ev_id bigint, ev_time timestamptz, ev_txid xid8, ev_retry int4, ev_type text, ev_data text,
               ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_ev_id IS NOT NULL THEN
        RETURN QUERY SELECT * FROM pgque.batch_event_rows(i_batch_id, i_ev_id - 1, 1, i_slot, i_n) r
                      WHERE r.ev_id = i_ev_id;
    END IF;
    IF i_ev_id IS NULL OR NOT FOUND THEN
        RAISE EXCEPTION 'msg_id % not found in batch %', i_ev_id, i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ008';
    END IF;
END
$$;

-- Internal: the open batch's subscription, or a PQ003 error.
CREATE OR REPLACE FUNCTION pgque.batch_subscription(i_batch_id bigint)
RETURNS pgque.subscription
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    SELECT * INTO s FROM pgque.subscription WHERE sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN s;
END
$$;

-- Internal: queue one event of the batch for redelivery to this subscription only.
CREATE OR REPLACE FUNCTION pgque.retry_event(i_sub pgque.subscription, i_batch_id bigint, i_ev_id bigint,
    i_retry_time timestamptz, i_slot int, i_n int)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_count int;
BEGIN
    INSERT INTO pgque.retry_queue (ev_retry_after, ev_queue, ev_id, ev_time, ev_txid, ev_owner, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    SELECT coalesce(i_retry_time, now()), i_sub.sub_queue, e.ev_id, e.ev_time, NULL, i_sub.sub_id, coalesce(e.ev_retry, 0) + 1,
           e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
      FROM pgque.batch_event(i_batch_id, i_ev_id, i_slot, i_n) e
    ON CONFLICT (ev_owner, ev_id) DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

CREATE OR REPLACE FUNCTION pgque.event_retry(x_batch_id bigint, x_event_id bigint, x_retry_time timestamptz)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.batch_subscription(x_batch_id);
BEGIN
    PERFORM pgque.batch_refuse_slot(x_batch_id, 'pgque.nack_partitioned()');
    IF NOT EXISTS (SELECT 1 FROM pgque.batch_event_rows(x_batch_id, x_event_id - 1, 1, NULL, NULL) r
                    WHERE r.ev_id = x_event_id) THEN
        RAISE EXCEPTION 'event not found' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ008',
            DETAIL = format('Batch %s has no event %s.', x_batch_id, x_event_id);
    END IF;
    RETURN pgque.retry_event(s, x_batch_id, x_event_id, x_retry_time, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.event_retry(x_batch_id bigint, x_event_id bigint, x_retry_seconds integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.event_retry(x_batch_id, x_event_id,
                             now() + make_interval(secs => greatest(coalesce(x_retry_seconds, 0), 0)));
END
$$;

CREATE OR REPLACE FUNCTION pgque.batch_retry(i_batch_id bigint, i_retry_seconds integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
    v_count int;
BEGIN
    SELECT * INTO s FROM pgque.subscription WHERE sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch_retry: batch % not found', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    PERFORM pgque.batch_refuse_slot(i_batch_id, 'pgque.nack_partitioned()');
    INSERT INTO pgque.retry_queue (ev_retry_after, ev_queue, ev_id, ev_time, ev_txid, ev_owner, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    SELECT now() + make_interval(secs => greatest(coalesce(i_retry_seconds, 0), 0)), s.sub_queue, e.ev_id, e.ev_time,
           NULL, s.sub_id, coalesce(e.ev_retry, 0) + 1,
           e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
      FROM pgque.batch_event_rows(i_batch_id, NULL, NULL, NULL, NULL) e
    ON CONFLICT (ev_owner, ev_id) DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- Internal: moves one event of an open batch to the dead letters of the batch's subscription
-- (for a row of a mode, of the consumer its hook names; idempotently: the same event twice is
-- one dead letter). The batch stays open.
CREATE OR REPLACE FUNCTION pgque.dead_letter_event(i_sub pgque.subscription, i_batch_id bigint, i_msg_id bigint,
    i_reason text, i_slot int, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    e record;
BEGIN
    SELECT * INTO e FROM pgque.batch_event(i_batch_id, i_msg_id, i_slot, i_n);
    INSERT INTO pgque.dead_letter (dl_queue_id, dl_consumer_id, dl_reason, ev_id, ev_time, ev_txid, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    VALUES (i_sub.sub_queue, CASE WHEN i_sub.sub_role = 'normal' THEN i_sub.sub_consumer
                 ELSE pgque.hook_dead_letter_consumer(i_sub) END, i_reason, e.ev_id, e.ev_time,
            e.ev_txid, e.ev_retry, e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4)
    ON CONFLICT (dl_queue_id, dl_consumer_id, ev_id) DO NOTHING;
END
$$;

-- PgQue's dead-letter primitive: moves event i_event_id of open batch i_batch_id to the dead
-- letters now, whatever its retry count, with reason i_reason; the batch stays open, and the same
-- event twice is one dead letter. The event is copied from the batch, as nack() does: the copies
-- of its fields a caller passes (i_ev_time to i_ev_extra4) are not trusted, so nobody can plant a
-- dead letter the queue never held. A slot's batch is refused (dead_letter_partitioned() is its
-- own). Admin only, as in PgQue.
CREATE OR REPLACE FUNCTION pgque.event_dead(i_batch_id bigint, i_event_id bigint, i_reason text,
    i_ev_time timestamptz, i_ev_txid xid8, i_ev_retry int4, i_ev_type text, i_ev_data text,
    i_ev_extra1 text DEFAULT NULL, i_ev_extra2 text DEFAULT NULL, i_ev_extra3 text DEFAULT NULL,
    i_ev_extra4 text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.batch_subscription(i_batch_id);
BEGIN
    PERFORM pgque.batch_refuse_slot(i_batch_id, 'pgque.dead_letter_partitioned()');
    PERFORM pgque.dead_letter_event(s, i_batch_id, i_event_id, i_reason, NULL, NULL);
    RETURN 1;
END
$$;

-- The same with the transaction id as PgQ's get_batch_events returns it (bigint), so that its
-- rows can be passed on as they come.
CREATE OR REPLACE FUNCTION pgque.event_dead(i_batch_id bigint, i_event_id bigint, i_reason text,
    i_ev_time timestamptz, i_ev_txid bigint, i_ev_retry int4, i_ev_type text, i_ev_data text,
    i_ev_extra1 text DEFAULT NULL, i_ev_extra2 text DEFAULT NULL, i_ev_extra3 text DEFAULT NULL,
    i_ev_extra4 text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.event_dead(i_batch_id, i_event_id, i_reason, i_ev_time, NULL::xid8, i_ev_retry, i_ev_type, i_ev_data);
END
$$;

-- Internal: the nack policy shared by nack and nack_partitioned. Retry until the event has
-- been retried max_retries times, then dead-letter it (idempotently).
CREATE OR REPLACE FUNCTION pgque.retry_nack(i_batch_id bigint, i_msg_id bigint, i_retry_after interval,
    i_reason text, i_slot int, i_n int)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.batch_subscription(i_batch_id);
    e record;
    v_max int4;
BEGIN
    SELECT * INTO e FROM pgque.batch_event(i_batch_id, i_msg_id, i_slot, i_n);
    SELECT coalesce(queue_max_retries, 5) INTO v_max FROM pgque.queue WHERE queue_id = s.sub_queue;
    IF coalesce(e.ev_retry, 0) >= v_max THEN
        PERFORM pgque.dead_letter_event(s, i_batch_id, i_msg_id, coalesce(i_reason, 'max retries exceeded'),
                                        i_slot, i_n);
    ELSE
        PERFORM pgque.retry_event(s, i_batch_id, i_msg_id,
            now() + greatest(coalesce(i_retry_after, interval '60 seconds'), interval '0'), i_slot, i_n);
    END IF;
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.nack(i_batch_id bigint, i_msg pgque.message,
    i_retry_after interval DEFAULT '60 seconds', i_reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text := pgque.batch_consumer_name(i_batch_id);
BEGIN
    IF position('#' IN coalesce(v_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot consumer %; retry slot batches via pgque.nack_partitioned()',
            i_batch_id, v_consumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    RETURN pgque.retry_nack(i_batch_id, (i_msg).msg_id, i_retry_after, i_reason, NULL, NULL);
END
$$;

-- Moves every due retry event back into its queue's active table, keeping its id, time, owner
-- and retry count; the new row gets a new txid, so it shows up in the next tick window, for its
-- owner only. One mover at a time (the lock conflicts with itself, not with nack).
CREATE OR REPLACE FUNCTION pgque.maint_retry_events()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_moved int;
    v_total int := 0;
BEGIN
    LOCK TABLE pgque.retry_queue IN SHARE UPDATE EXCLUSIVE MODE;
    FOR q IN SELECT * FROM pgque.queue qq
              WHERE EXISTS (SELECT 1 FROM pgque.retry_queue r WHERE r.ev_queue = qq.queue_id AND r.ev_retry_after <= now())
              ORDER BY qq.queue_id LOOP
        EXECUTE format(
            'WITH moved AS (
                 DELETE FROM pgque.retry_queue r WHERE r.ev_queue = $1 AND r.ev_retry_after <= now()
                   AND r.ev_owner <> ALL ($2)
                 RETURNING r.ev_id, r.ev_time, r.ev_owner, r.ev_retry, r.ev_type, r.ev_data,
                           r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4)
             INSERT INTO %s (ev_id, ev_time, ev_owner, ev_retry, ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT * FROM moved ORDER BY ev_id',
            pgque.event_active_table(q.queue_id))
        -- Retries a mode holds back (those of old slots while a resize drains) stay.
        USING q.queue_id, pgque.hook_retry_held_owners(q.queue_id);
        GET DIAGNOSTICS v_moved = ROW_COUNT;
        -- Retries count toward the ticker's event threshold like fresh events.
        PERFORM nextval(pgque.event_seq_name(q.queue_id)::regclass) FROM generate_series(1, v_moved);
        v_total := v_total + v_moved;
    END LOOP;
    RETURN v_total;
END
$$;

CREATE OR REPLACE FUNCTION pgque.dlq_inspect(i_queue_name text, i_limit_count int DEFAULT 100)
RETURNS SETOF pgque.dead_letter
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_limit_count < 0 THEN
        RAISE EXCEPTION 'dlq_inspect: limit must be >= 0, got %', i_limit_count USING ERRCODE = '22023',
            HINT = 'NULL means the default of 100.';
    END IF;
    RETURN QUERY
    SELECT d.* FROM pgque.dead_letter d
     WHERE d.dl_queue_id = (pgque.queue_row(i_queue_name)).queue_id
     ORDER BY d.dl_time DESC, d.dl_id DESC
     LIMIT coalesce(i_limit_count, 100);
END
$$;

-- Internal: re-sends the given dead letters of one queue as new events (new ids, in dl_id
-- order) and removes them; returns the new ids. The rows must be locked by the caller.
CREATE OR REPLACE FUNCTION pgque.dlq_resend(i_queue_id int4, i_dl_ids bigint[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    d record;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_id = i_queue_id;
    SELECT array_agg(ev_type ORDER BY dl_id) AS types, array_agg(ev_data ORDER BY dl_id) AS payloads,
           array_agg(ev_extra1 ORDER BY dl_id) AS e1, array_agg(ev_extra2 ORDER BY dl_id) AS e2,
           array_agg(ev_extra3 ORDER BY dl_id) AS e3, array_agg(ev_extra4 ORDER BY dl_id) AS e4
      INTO d
      FROM pgque.dead_letter WHERE dl_queue_id = i_queue_id AND dl_id = ANY (i_dl_ids);
    DELETE FROM pgque.dead_letter WHERE dl_queue_id = i_queue_id AND dl_id = ANY (i_dl_ids);
    RETURN pgque.event_insert_raw(q, d.types, d.payloads, d.e1, d.e2, d.e3, d.e4);
END
$$;

-- Re-sends a dead letter as a new event (new id) and removes it from the dead letters.
CREATE OR REPLACE FUNCTION pgque.dlq_replay(i_dead_letter_id bigint)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_queue int4;
BEGIN
    SELECT dl_queue_id INTO v_queue FROM pgque.dead_letter WHERE dl_id = i_dead_letter_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'dead letter entry not found: %', i_dead_letter_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    RETURN (pgque.dlq_resend(v_queue, ARRAY[i_dead_letter_id]))[1];
END
$$;

-- Re-sends every dead letter of the queue, oldest first, in one insert; returns PgQue's record:
-- how many were replayed, how many failed, and the first error. The insert is all or nothing:
-- when it fails (inserts into the queue are disabled, say), no dead letter is replayed or
-- removed, every one counts as failed, and the error is reported with the first one's id, also
-- as a warning. A serialization failure, a lock timeout and the like are raised as they are.
CREATE OR REPLACE FUNCTION pgque.dlq_replay_all(i_queue_name text, OUT replayed bigint, OUT failed bigint,
    OUT first_error text)
RETURNS record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue_name);
    v_ids bigint[];
BEGIN
    v_ids := ARRAY(SELECT dl_id FROM pgque.dead_letter WHERE dl_queue_id = q.queue_id ORDER BY dl_id FOR UPDATE);
    replayed := 0;
    failed := 0;
    IF cardinality(v_ids) = 0 THEN
        RETURN;
    END IF;
    BEGIN
        replayed := cardinality(pgque.dlq_resend(q.queue_id, v_ids));
    EXCEPTION WHEN OTHERS THEN
        -- What the caller must see as such (retry the transaction, a lock wait that timed out, the
        -- server short of resources) is not a failed replay.
        IF SQLSTATE ~ '^(40|53|57|55P03)' THEN
            RAISE;
        END IF;
        failed := cardinality(v_ids);
        first_error := format('dl_id=%s: %s', v_ids[1], SQLERRM);
        RAISE WARNING 'dlq_replay_all: replayed none of the % dead letter(s) of queue %: %', failed, i_queue_name, SQLERRM;
    END;
END
$$;

CREATE OR REPLACE FUNCTION pgque.dlq_purge(i_queue_name text, i_older_than interval DEFAULT '30 days')
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_count int;
BEGIN
    DELETE FROM pgque.dead_letter
     WHERE dl_queue_id = (pgque.queue_row(i_queue_name)).queue_id
       AND dl_time < now() - coalesce(i_older_than, interval '30 days');
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;
