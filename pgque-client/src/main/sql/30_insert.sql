--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Producing: every path ends in pgque.event_insert_raw, which writes into the queue's active
-- event table. Writer role.
--
-- Layer: core (README.md). Calls 20_queue.sql.

-- Internal: the event table that new rows of the queue must go to.
--
-- Rotation's step 2 records a transaction id from which on every writer uses the new table;
-- readers rely on it to skip the old one. So the writer's own transaction id must be taken
-- before the table number is read, and the read must not come from a snapshot older than the
-- switch: under READ COMMITTED each statement reads afresh; under REPEATABLE READ or
-- SERIALIZABLE the row lock turns a stale read into a serialization failure (retry the
-- transaction) instead of a row written to a table readers no longer scan.
CREATE OR REPLACE FUNCTION pgque.event_active_table(i_queue_id int4)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_table text;
BEGIN
    PERFORM pg_current_xact_id();
    IF current_setting('transaction_isolation') = 'read committed' THEN
        SELECT pgque.event_table_name(queue_id, queue_cur_table) INTO v_table FROM pgque.queue WHERE queue_id = i_queue_id;
    ELSE
        SELECT pgque.event_table_name(queue_id, queue_cur_table) INTO v_table FROM pgque.queue WHERE queue_id = i_queue_id
           FOR SHARE;
    END IF;
    RETURN v_table;
END
$$;

-- Internal: the one place that writes event rows. Ids are drawn in a block and handed out in
-- ascending order of input position, so events sent together keep their order (ev_id order is
-- delivery order inside a batch). Returns the ids aligned with the input arrays.
CREATE OR REPLACE FUNCTION pgque.event_insert_raw(
    i_q pgque.queue, i_types text[], i_payloads text[],
    i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ids bigint[];
BEGIN
    IF coalesce(cardinality(i_payloads), 0) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    v_ids := pgque.event_draw_ids(i_q, cardinality(i_payloads));
    PERFORM pgque.event_insert_rows(i_q, v_ids, i_types, i_payloads, i_extra1, i_extra2, i_extra3, i_extra4);
    RETURN v_ids;
END
$$;

-- Internal: a block of n event ids of the queue, ascending. Drawing them before the rows exist
-- lets producers that must record an id elsewhere (the idempotency claims) write it once.
CREATE OR REPLACE FUNCTION pgque.event_draw_ids(i_q pgque.queue, i_count int)
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    -- Resolved once: a name cast to regclass per id was most of the cost of drawing them.
    v_seq regclass := pgque.event_seq_name(i_q.queue_id)::regclass;
BEGIN
    RETURN ARRAY(SELECT nextval(v_seq) FROM generate_series(1, i_count) ORDER BY 1);
END
$$;

-- Internal: writes event rows with the given ids into the queue's active event table.
CREATE OR REPLACE FUNCTION pgque.event_insert_rows(
    i_q pgque.queue, i_ids bigint[], i_types text[], i_payloads text[],
    i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_table text;
BEGIN
    IF i_q.queue_disable_insert AND current_setting('session_replication_role') <> 'replica' THEN
        RAISE EXCEPTION 'Insert into queue disallowed' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has disable_insert = true.', i_q.queue_name);
    END IF;
    v_table := pgque.event_active_table(i_q.queue_id);
    -- One unnest walks all the arrays side by side (a NULL array gives NULLs); subscripting a
    -- text array by position would walk it from the start for every row.
    EXECUTE format(
        'INSERT INTO %s (ev_id, ev_time, ev_owner, ev_retry, ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
         SELECT u.id, now(), NULL, NULL, coalesce(u.type, ''default''), u.payload, u.e1, u.e2, u.e3, u.e4
           FROM unnest($1, $2, $3, $4, $5, $6, $7) AS u(id, type, payload, e1, e2, e3, e4)',
        v_table)
    USING i_ids, i_types, i_payloads, i_extra1, i_extra2, i_extra3, i_extra4;
END
$$;

-- Internal: argument checks shared by the array forms.
CREATE OR REPLACE FUNCTION pgque.event_check_arrays(
    i_payloads text[], i_types text[], i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_n int;
BEGIN
    IF i_payloads IS NULL THEN
        RAISE EXCEPTION 'payloads must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF array_ndims(i_payloads) > 1 THEN
        RAISE EXCEPTION 'payloads must be a one-dimensional array' USING ERRCODE = '22023';
    END IF;
    v_n := cardinality(i_payloads);
    IF (i_types IS NOT NULL AND cardinality(i_types) <> v_n)
       OR (i_extra1 IS NOT NULL AND cardinality(i_extra1) <> v_n)
       OR (i_extra2 IS NOT NULL AND cardinality(i_extra2) <> v_n)
       OR (i_extra3 IS NOT NULL AND cardinality(i_extra3) <> v_n)
       OR (i_extra4 IS NOT NULL AND cardinality(i_extra4) <> v_n) THEN
        RAISE EXCEPTION 'every non-null array must have as many elements as payloads (%)', v_n
            USING ERRCODE = '22023';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.insert_event(queue_name text, ev_type text, ev_data text,
    ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (pgque.event_insert_raw(pgque.queue_row(queue_name), ARRAY[ev_type], ARRAY[ev_data],
            ARRAY[ev_extra1], ARRAY[ev_extra2], ARRAY[ev_extra3], ARRAY[ev_extra4]))[1];
END
$$;

CREATE OR REPLACE FUNCTION pgque.insert_event(queue_name text, ev_type text, ev_data text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, ev_type, ev_data, NULL, NULL, NULL, NULL);
END
$$;

-- The modern send API. jsonb payloads are stored as their canonical text; text payloads
-- verbatim.
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, payload jsonb) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, 'default', payload::text, NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, payload text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, 'default', payload, NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, type_name text, payload jsonb) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, type_name, payload::text, NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, type_name text, payload text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, type_name, payload, NULL, NULL, NULL, NULL);
END
$$;
-- Keyed send: the partition key goes to ev_extra1 (no default on the key, so these never
-- collide with the three-argument forms).
CREATE OR REPLACE FUNCTION pgque.send(i_queue text, i_type text, i_payload jsonb, i_partition_key text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(i_queue, i_type, i_payload::text, i_partition_key, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(i_queue text, i_type text, i_payload text, i_partition_key text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(i_queue, i_type, i_payload, i_partition_key, NULL, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_events(i_queue text, i_types text[], i_payloads text[],
    i_partition_keys text[] DEFAULT NULL, i_extra2 text[] DEFAULT NULL,
    i_extra3 text[] DEFAULT NULL, i_extra4 text[] DEFAULT NULL)
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    PERFORM pgque.event_check_arrays(i_payloads, i_types, i_partition_keys, i_extra2, i_extra3, i_extra4);
    q := pgque.queue_row(i_queue);
    RETURN pgque.event_insert_raw(q, i_types, i_payloads, i_partition_keys, i_extra2, i_extra3, i_extra4);
END
$$;

-- send_batch goes through PgQ's bulk primitive, insert_event_bulk (below), as PgQue's does: one
-- set-based insert for the whole array. An empty array touches nothing, not even the queue.
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, type_name text, payloads text[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.event_check_arrays(payloads, NULL, NULL, NULL, NULL, NULL);
    IF cardinality(payloads) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    RETURN pgque.insert_event_bulk(queue_name, coalesce(type_name, 'default'), payloads);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, payloads text[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_batch(queue_name, 'default', payloads);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, type_name text, payloads jsonb[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.event_check_arrays(payloads::text[], NULL, NULL, NULL, NULL, NULL);
    IF cardinality(payloads) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    RETURN pgque.insert_event_bulk(queue_name, coalesce(type_name, 'default'), payloads::text[]);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, payloads jsonb[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_batch(queue_name, 'default', payloads::text[]);
END
$$;

-- PgQ's internal bulk primitive under send_batch: one event of type ev_type per element of
-- ev_data_list (a NULL element is a NULL payload), ids returned in input order; an empty array
-- for an empty input. For the owner only (revoked from every role): producers use send_batch.
CREATE OR REPLACE FUNCTION pgque.insert_event_bulk(queue_name text, ev_type text, ev_data_list text[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(insert_event_bulk.queue_name);
BEGIN
    IF coalesce(cardinality(ev_data_list), 0) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    RETURN pgque.event_insert_raw(q, array_fill(insert_event_bulk.ev_type, ARRAY[cardinality(ev_data_list)]),
                                   ev_data_list, NULL, NULL, NULL, NULL);
END
$$;
