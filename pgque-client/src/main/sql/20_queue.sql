--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Queues: the lookups and the object names that every later file uses. Internal only.
--
-- Layer: core, at the bottom (README.md). Calls only pgque.role_name() (01_guard.sql). The queue
-- table is in 10_tables.sql; creating, dropping and configuring queues is the admin API in
-- 68_queue_admin.sql, above every layer whose state a queue carries.

-- Internal: the queue row, or a PQ001 error naming the queue.
CREATE OR REPLACE FUNCTION pgque.queue_row(i_queue text)
RETURNS pgque.queue
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    q pgque.queue;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue not found: %', i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001';
    END IF;
    RETURN q;
END
$$;

-- Internal: the current transaction id as a bigint (for the rotation bookkeeping columns).
CREATE OR REPLACE FUNCTION pgque.txid_current()
RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pg_current_xact_id()::text::bigint;
END
$$;

-- Internal: the event sequence's latest value (0 before the first event).
CREATE OR REPLACE FUNCTION pgque.seq_last_value(i_seq text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN coalesce(pg_sequence_last_value(i_seq::regclass), 0);
END
$$;

-- Internal: the names of a queue's objects, built from its id alone. Code that runs with the
-- owner's rights names tables and sequences only through these (never from the text columns of
-- pgque.queue), so whoever could change a row cannot steer that code to another object.
-- i_table NULL: the parent event table; 0..ntables-1: one of its children.
CREATE OR REPLACE FUNCTION pgque.event_table_name(i_queue_id int4, i_table int4)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'pgque.' || pg_catalog.quote_ident('event_' || i_queue_id::text
                                              || coalesce('_' || i_table::text, ''))
$$;

CREATE OR REPLACE FUNCTION pgque.event_seq_name(i_queue_id int4)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'pgque.' || pg_catalog.quote_ident('event_' || i_queue_id::text || '_id_seq')
$$;

CREATE OR REPLACE FUNCTION pgque.tick_seq_name(i_queue_id int4)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'pgque.' || pg_catalog.quote_ident('event_' || i_queue_id::text || '_tick_seq')
$$;

-- Internal: readers and admins may scan a queue's event tables (read-ahead queries run as the
-- reader); nobody but the owner may write, truncate or put a trigger on them.
CREATE OR REPLACE FUNCTION pgque.queue_grant_tables(i_queue_id int4)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ntables int4;
BEGIN
    SELECT queue_ntables INTO v_ntables FROM pgque.queue WHERE queue_id = i_queue_id;
    FOR i IN -1 .. v_ntables - 1 LOOP
        EXECUTE format('GRANT SELECT ON %s TO %I, %I', pgque.event_table_name(i_queue_id, nullif(i, -1)),
                       pgque.role_name('reader'), pgque.role_name('admin'));
    END LOOP;
END
$$;
