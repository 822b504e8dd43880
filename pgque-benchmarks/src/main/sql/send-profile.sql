--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Where the server time of one send_events call goes: 1,000 calls of 10 keyed ~1 KB events in
-- one transaction each step, beside the same rows written by a static INSERT. Run as the engine's
-- owner on a database with the engine installed; it creates and drops queue send_profile.
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f pgque-benchmarks/src/main/sql/send-profile.sql
\timing on
SELECT pgque.create_queue('send_profile');
CREATE TEMP TABLE send_profile_input AS
SELECT array_fill('profile.event'::text, ARRAY[10]) AS types,
       ARRAY(SELECT repeat('x', 1000) FROM generate_series(1, 10)) AS payloads,
       ARRAY(SELECT 'key-' || g FROM generate_series(1, 10) g) AS keys;

\echo send_events: the whole call
DO $$
DECLARE i send_profile_input := (SELECT r FROM send_profile_input r);
BEGIN
    FOR n IN 1..1000 LOOP
        PERFORM pgque.send_events('send_profile', i.types, i.payloads, i.keys);
    END LOOP;
END $$;

\echo the same rows and ids by a static INSERT into the active event table (no function layers, planned once)
DO $$
DECLARE
    i send_profile_input := (SELECT r FROM send_profile_input r);
    q pgque.queue := pgque.queue_row('send_profile');
    v_ids bigint[];
BEGIN
    EXECUTE format($f$CREATE OR REPLACE FUNCTION pg_temp.static_send(p_ids bigint[], p_types text[], p_payloads text[],
                                                                    p_keys text[]) RETURNS void LANGUAGE plpgsql AS $b$
        BEGIN
            INSERT INTO %s (ev_id, ev_time, ev_type, ev_data, ev_extra1)
            SELECT u.id, now(), u.type, u.payload, u.k FROM unnest(p_ids, p_types, p_payloads, p_keys) AS u(id, type, payload, k);
        END $b$ $f$, pgque.event_active_table(q.queue_id));
    FOR n IN 1..1000 LOOP
        v_ids := ARRAY(SELECT nextval(pgque.event_seq_name(q.queue_id)::regclass) FROM generate_series(1, 10));
        PERFORM pg_temp.static_send(v_ids, i.types, i.payloads, i.keys);
    END LOOP;
END $$;

\echo its parts: argument checks, the queue row, drawing 10 ids, writing the rows (dynamic INSERT)
DO $$
DECLARE i send_profile_input := (SELECT r FROM send_profile_input r);
BEGIN
    FOR n IN 1..1000 LOOP
        PERFORM pgque.event_check_arrays(i.payloads, i.types, i.keys, NULL, NULL, NULL);
    END LOOP;
END $$;
DO $$
DECLARE q pgque.queue;
BEGIN
    FOR n IN 1..1000 LOOP
        q := pgque.queue_row('send_profile');
    END LOOP;
END $$;
DO $$
DECLARE q pgque.queue := pgque.queue_row('send_profile');
BEGIN
    FOR n IN 1..1000 LOOP
        PERFORM pgque.event_draw_ids(q, 10);
    END LOOP;
END $$;
DO $$
DECLARE
    i send_profile_input := (SELECT r FROM send_profile_input r);
    q pgque.queue := pgque.queue_row('send_profile');
    v_ids bigint[] := pgque.event_draw_ids(q, 10);
BEGIN
    FOR n IN 1..1000 LOOP
        PERFORM pgque.event_insert_rows(q, v_ids, i.types, i.payloads, i.keys, NULL, NULL, NULL);
    END LOOP;
END $$;

\timing off
SELECT pgque.drop_queue('send_profile', true);
