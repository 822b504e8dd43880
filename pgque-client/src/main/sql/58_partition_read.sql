--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: reading a slot's batches, acking, nacking and dead-lettering them, each under
-- the slot's lease (slot_guard). Reader role.
--
-- Layer: mode, partition (README.md). Calls the core, 55_partition.sql, 57_partition_lease.sql and
-- 57_partition_pause.sql.

-- Internal: what receive_partitioned and ack_receive_partitioned (i_caller, for messages) do before
-- they read: check their arguments and the lease (renewing it, taking the receive lock), ack the
-- slot's open batch if it is i_ack_batch_id (NULL: nothing is acked), and open the slot's next
-- batch (with i_window_events, over as many ticks as that window holds) or re-issue the open one.
-- The batch's id (NULL when there is none) and the slot's subscription as it stood before.
CREATE OR REPLACE FUNCTION pgque.slot_batch_open(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_ack_batch_id bigint, i_max int, i_window_events bigint, i_caller text,
    OUT batch_id bigint, OUT sub pgque.subscription)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION '%: max must be >= 1, got %', i_caller, i_max USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_window_events < 1 THEN
        RAISE EXCEPTION '%: window_events must be >= 1 or NULL, got %', i_caller, i_window_events
            USING ERRCODE = '22023';
    END IF;
    sub := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    IF sub.sub_batch IS NOT NULL AND sub.sub_batch = i_ack_batch_id THEN
        PERFORM pgque.slot_batch_close(sub, sub.sub_batch);
        sub.sub_batch := NULL;
    END IF;
    SELECT b.batch_id INTO batch_id
      FROM pgque.batch_open(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), NULL, NULL, NULL,
                            i_window_events) b;
    -- A batch opened now (not one re-issued): the events of the slot's blocked keys in its window
    -- are set aside (57_partition_pause.sql).
    IF batch_id IS NOT NULL AND sub.sub_batch IS NULL THEN
        PERFORM pgque.slot_block_open(sub, batch_id);
    END IF;
END
$$;

-- (addition) receive_partitioned for a reader that may fall behind: a slot whose cursor is
-- several ticks back gets one batch over as many of them as hold at most i_window_events events
-- of the queue (the slot's share is about 1/N of those), at least one tick; NULL is one tick per
-- batch, as receive_partitioned. Fewer, larger batches while catching up; one tick each when not.
-- The scan is run here, not behind a shared internal function: every set-returning layer copies
-- the page once more, and this is the connector's read path.
CREATE OR REPLACE FUNCTION pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_max int, i_window_events bigint)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    o record := pgque.slot_batch_open(i_queue, i_consumer, i_slot, i_n, i_worker, NULL, i_max,
                                      i_window_events, 'pgque.receive_partitioned');
    s pgque.subscription := o.sub;
    v_batch bigint := o.batch_id;
BEGIN
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    -- batch_first_page, the scan run here: no set-returning layer between it and the reader.
    RETURN QUERY EXECUTE pgque.batch_scan_sql(v_batch, NULL, i_max, i_slot, i_n, true);
    IF NOT FOUND THEN
        PERFORM pgque.slot_batch_close(s, v_batch);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_max int DEFAULT 100)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY SELECT * FROM pgque.receive_partitioned(i_queue, i_consumer, i_slot, i_n, i_worker, i_max, NULL::bigint);
END
$$;

CREATE OR REPLACE FUNCTION pgque.read_batch_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_after_msg_id bigint, i_max int DEFAULT 1000)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_batch_partitioned: max must be >= 1, got %', i_max USING ERRCODE = '22023';
    END IF;
    s := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch', i_slot, i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    RETURN QUERY EXECUTE pgque.batch_scan_sql(s.sub_batch, i_after_msg_id, i_max, i_slot, i_n, true);
END
$$;

CREATE OR REPLACE FUNCTION pgque.ack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RETURN 0;
    END IF;
    RETURN pgque.slot_batch_close(s, s.sub_batch);
END
$$;

-- Acks the slot's open batch only if it is i_batch_id: a reader whose earlier ack (and the
-- receive in the same transaction) committed without it hearing back must not finish the next
-- batch, which it has not seen. 0 when the slot has no open batch or another one.
CREATE OR REPLACE FUNCTION pgque.ack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS DISTINCT FROM i_batch_id THEN
        RETURN 0;
    END IF;
    RETURN pgque.slot_batch_close(s, s.sub_batch);
END
$$;

CREATE OR REPLACE FUNCTION pgque.nack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_msg pgque.message, i_retry_after interval DEFAULT '60 seconds', i_reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch to nack', i_slot, i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN pgque.retry_nack(s.sub_batch, (i_msg).msg_id, i_retry_after, i_reason, i_slot, i_n);
END
$$;

-- (addition) Dead-letters one event of the slot's open batch now, whatever its retry count: for
-- an event this consumer can never process (say, a payload it cannot decode), where retrying
-- would only bring it back. The batch stays open; ack it after. Repeating it is a no-op.
CREATE OR REPLACE FUNCTION pgque.dead_letter_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_msg_id bigint, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch', i_slot, i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    IF i_reason IS NULL OR i_reason = '' THEN
        RAISE EXCEPTION 'a dead letter needs a reason' USING ERRCODE = '22023';
    END IF;
    PERFORM pgque.dead_letter_event(s, s.sub_batch, i_msg_id, i_reason, i_slot, i_n);
    RETURN 1;
END
$$;

-- (addition) ack_partitioned with i_batch_id and receive_partitioned with i_window_events in one
-- call, under one lease check: a reader that keeps up acks each batch with the receive of the
-- next, so a slot's batch costs one statement and one commit rather than two of each. The open
-- batch is acked only if it is i_batch_id (NULL: nothing is acked); another open batch -- an
-- earlier call committed unheard -- is re-issued, never acked, as receive_partitioned re-issues it.
CREATE OR REPLACE FUNCTION pgque.ack_receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_max int, i_window_events bigint)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    o record := pgque.slot_batch_open(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_max,
                                      i_window_events, 'pgque.ack_receive_partitioned');
    v_batch bigint := o.batch_id;
BEGIN
    IF v_batch IS NOT NULL THEN
        RETURN QUERY EXECUTE pgque.batch_scan_sql(v_batch, NULL, i_max, i_slot, i_n, true);
        IF NOT FOUND THEN
            PERFORM pgque.slot_batch_close(o.sub, v_batch);
        END IF;
    END IF;
END
$$;
