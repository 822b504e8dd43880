--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Producer idempotency: a TTL window of idempotency keys per queue (like SQS deduplication ids).
-- The claim and the event share the caller's transaction, so a rolled-back send frees its key
-- and no key is ever claimed without its event. Writer role; listing and releasing claims: admin.
--
-- A queue's key space is shared by every writer of the queue: that is the point of producer
-- dedup (two producers of one effect send it once). So a claim may not outlive the queue's
-- idem_max_ttl (30 days unless the admin sets it), and the admin sees (list_idem_keys) and
-- releases (release_idem_key) claims.
--
-- Key scope matters: the key must name the effect, not just the entity. With key
-- 'migrate:<tenant>', migration v2 sent within the window of v1 is silently dropped as a
-- duplicate; use 'migrate:<tenant>:<version>'.
--
-- Layer: on top (README.md). Calls the core's producing (20_queue.sql, 30_insert.sql).

-- No foreign key to pgque.queue: its check is one query per claimed key, a third of the cost of a
-- batch's claims. Each send locks the queue row once instead (idem_prepare), which keeps a
-- concurrent drop_queue waiting as the key's check would, and drop_queue deletes the claims.
CREATE TABLE IF NOT EXISTS pgque.idem (
    queue_id   int4 NOT NULL,
    idem_key   text NOT NULL,
    event_id   bigint,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (queue_id, idem_key)
);
CALL pg_temp.pgque_ddl_if(to_regclass('pgque.idem_expires_at_idx') IS NULL,
    'CREATE INDEX idem_expires_at_idx ON pgque.idem (expires_at)');
DO $idem_fk$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'pgque.idem'::regclass AND conname = 'idem_queue_id_fkey') THEN
        ALTER TABLE pgque.idem DROP CONSTRAINT idem_queue_id_fkey;
    END IF;
END
$idem_fk$;

-- Every queue lists the reaper of its expired keys, pgque.maint_idem, among its extra
-- maintenance, as PgQue's send_idem registers it: create_queue (68_queue_admin.sql) lists it
-- from the start, so no send ever writes the queue row (rotation locks it), and this lists it for
-- queues of older engines, once.
UPDATE pgque.queue
   SET queue_extra_maint = array_append(coalesce(queue_extra_maint, '{}'::text[]), 'pgque.maint_idem')
 WHERE NOT coalesce('pgque.maint_idem' = ANY (queue_extra_maint), false);

-- Internal: TTL check (positive, finite, at most the queue's idem_max_ttl) and the queue, locked
-- against drop_queue for the transaction.
CREATE OR REPLACE FUNCTION pgque.idem_prepare(i_queue text, i_ttl interval)
RETURNS pgque.queue
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    IF i_ttl IS NULL OR NOT isfinite(i_ttl) OR i_ttl <= interval '0' THEN
        RAISE EXCEPTION 'ttl must be a positive interval' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = format('Got %s; the TTL must also be finite.', coalesce(i_ttl::text, 'NULL'));
    END IF;
    q := pgque.queue_row(i_queue);
    IF i_ttl > q.queue_idem_max_ttl THEN
        RAISE EXCEPTION 'ttl % is longer than the idem_max_ttl % of queue %', i_ttl, q.queue_idem_max_ttl, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
                  DETAIL = 'A queue''s idempotency keys are shared by all its writers; a claim may not outlive what the queue allows.',
                  HINT = format('Use a ttl of at most %s, or have an admin raise the queue''s idem_max_ttl (set_queue_config).',
                                q.queue_idem_max_ttl);
    END IF;
    -- Held to the end of the transaction: drop_queue (FOR UPDATE) waits for the claims.
    PERFORM 1 FROM pgque.queue WHERE queue_id = q.queue_id FOR KEY SHARE;
    IF NOT FOUND THEN
        q := pgque.queue_row(i_queue); -- dropped meanwhile: the usual "queue not found"
    END IF;
    -- maint() reaps expired keys of every queue; a send never writes the queue row (an update
    -- here would hold the row against rotation until the producer commits).
    RETURN q;
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_idem(i_queue text, i_type text, i_payload text, i_idem_key text,
    i_ttl interval DEFAULT '1 hour', i_partition_key text DEFAULT NULL)
RETURNS TABLE (event_id bigint, deduped boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_claimed boolean;
    v_id bigint;
BEGIN
    IF i_idem_key IS NULL THEN
        RAISE EXCEPTION 'idem_key must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    q := pgque.idem_prepare(i_queue, i_ttl);
    -- The primary key serialises racing senders of one key: the second waits for the first's
    -- transaction, then sees its live claim (dedup) or, after a rollback, claims itself.
    INSERT INTO pgque.idem AS i (queue_id, idem_key, event_id, expires_at)
    VALUES (q.queue_id, i_idem_key, NULL, clock_timestamp() + i_ttl)
    ON CONFLICT (queue_id, idem_key) DO UPDATE
        SET event_id = NULL, expires_at = clock_timestamp() + i_ttl
        WHERE i.expires_at <= clock_timestamp()
    RETURNING true INTO v_claimed;
    IF v_claimed THEN
        v_id := (pgque.event_insert_raw(q, ARRAY[i_type], ARRAY[i_payload], ARRAY[i_partition_key],
                                         ARRAY[i_idem_key], NULL, NULL))[1];
        -- The window starts now: the claim may have waited on another session's lock.
        UPDATE pgque.idem SET event_id = v_id, expires_at = clock_timestamp() + i_ttl
         WHERE queue_id = q.queue_id AND idem_key = i_idem_key;
        RETURN QUERY SELECT v_id, false;
    ELSE
        RETURN QUERY SELECT i.event_id, true FROM pgque.idem i WHERE i.queue_id = q.queue_id AND i.idem_key = i_idem_key;
        IF NOT FOUND THEN
            RETURN QUERY SELECT NULL::bigint, true;
        END IF;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_idem(i_queue text, i_type text, i_payload jsonb, i_idem_key text,
    i_ttl interval DEFAULT '1 hour', i_partition_key text DEFAULT NULL)
RETURNS TABLE (event_id bigint, deduped boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY SELECT * FROM pgque.send_idem(i_queue, i_type, i_payload::text, i_idem_key, i_ttl, i_partition_key);
END
$$;

-- The batch form, for the sink: one round trip per batch. Results come back per input position;
-- a key repeated inside one call is deduped to its first occurrence.
--
-- Each claim row is written once: the event ids are drawn for every first occurrence before the
-- claim, so the claim stores its event's id at once (a key found live wastes its id: sequences
-- have gaps anyway, and the ticker's event count only runs a little ahead). Every step is a set
-- operation over the input joined by position (no array subscripting, no ANY over arrays), so a
-- call costs O(n log n) in its size.
CREATE OR REPLACE FUNCTION pgque.send_idem_events(i_queue text, i_types text[], i_payloads text[], i_idem_keys text[],
    i_ttl interval, i_partition_keys text[] DEFAULT NULL, i_extra3 text[] DEFAULT NULL, i_extra4 text[] DEFAULT NULL)
RETURNS TABLE (ord int, event_id bigint, deduped boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_first_ords int[];
    v_first_keys text[];
    v_first_ids bigint[];
    v_claim_ords int[];
    v_claim_ids bigint[];
    v_claim_keys text[];
    v_started timestamptz;
    v_rows record;
BEGIN
    PERFORM pgque.event_check_arrays(i_payloads, i_types, i_partition_keys, i_idem_keys, i_extra3, i_extra4);
    IF i_idem_keys IS NULL OR array_position(i_idem_keys, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'idem_key must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = format('Position %s of the idempotency keys is NULL.', coalesce(array_position(i_idem_keys, NULL), 0));
    END IF;
    q := pgque.idem_prepare(i_queue, i_ttl);
    IF cardinality(i_payloads) = 0 THEN
        RETURN;
    END IF;

    -- First occurrence of each key, in input order; ids drawn ascending, so ev_id order follows
    -- input order among the events that get written.
    SELECT array_agg(f.o ORDER BY f.o), array_agg(f.k ORDER BY f.o)
      INTO v_first_ords, v_first_keys
      FROM (SELECT u.k, min(u.o)::int AS o
              FROM unnest(i_idem_keys) WITH ORDINALITY AS u(k, o)
             GROUP BY u.k) f;
    v_first_ids := pgque.event_draw_ids(q, cardinality(v_first_ords));

    -- Claims in key order, so two batches racing on overlapping keys cannot deadlock.
    v_started := clock_timestamp();
    WITH claimed AS (
        INSERT INTO pgque.idem AS i (queue_id, idem_key, event_id, expires_at)
        SELECT q.queue_id, f.k, f.id, clock_timestamp() + i_ttl
          FROM unnest(v_first_keys, v_first_ids) AS f(k, id)
         ORDER BY f.k
        ON CONFLICT (queue_id, idem_key) DO UPDATE
            SET event_id = excluded.event_id, expires_at = clock_timestamp() + i_ttl
            WHERE i.expires_at <= clock_timestamp()
        RETURNING i.idem_key, i.event_id)
    SELECT array_agg(f.o ORDER BY f.o), array_agg(c.event_id ORDER BY f.o), array_agg(c.idem_key ORDER BY f.o)
      INTO v_claim_ords, v_claim_ids, v_claim_keys
      FROM claimed c
      JOIN unnest(v_first_keys, v_first_ords) AS f(k, o) ON f.k = c.idem_key;

    IF v_claim_ords IS NULL THEN
        RETURN QUERY
            SELECT u.o::int, i.event_id, true
              FROM unnest(i_idem_keys) WITH ORDINALITY AS u(k, o)
              LEFT JOIN pgque.idem i ON i.queue_id = q.queue_id AND i.idem_key = u.k
             ORDER BY u.o;
        RETURN;
    END IF;

    -- The window starts when the key was got: a claim that waited on another session's lock
    -- (its rows were stamped before the wait) is stamped again. Without a wait the statement is
    -- fast and this costs nothing.
    IF clock_timestamp() - v_started > interval '1 second' THEN
        UPDATE pgque.idem i SET expires_at = clock_timestamp() + i_ttl
          FROM unnest(v_claim_keys) AS c(k)
         WHERE i.queue_id = q.queue_id AND i.idem_key = c.k;
    END IF;

    IF cardinality(v_claim_ords) = cardinality(i_payloads) THEN
        -- Every position claimed (the usual case: no key seen before): the input is the rows.
        PERFORM pgque.event_insert_rows(q, v_claim_ids, i_types, i_payloads, i_partition_keys, i_idem_keys,
                                        i_extra3, i_extra4);
    ELSE
        SELECT array_agg(u.t ORDER BY c.o) AS types, array_agg(u.p ORDER BY c.o) AS payloads,
               array_agg(u.pk ORDER BY c.o) AS pks, array_agg(u.k ORDER BY c.o) AS keys,
               array_agg(u.e3 ORDER BY c.o) AS e3, array_agg(u.e4 ORDER BY c.o) AS e4
          INTO v_rows
          FROM unnest(i_types, i_payloads, i_partition_keys, i_idem_keys, i_extra3, i_extra4)
                   WITH ORDINALITY AS u(t, p, pk, k, e3, e4, o)
          JOIN unnest(v_claim_ords) AS c(o) ON c.o = u.o;
        PERFORM pgque.event_insert_rows(q, v_claim_ids, v_rows.types, v_rows.payloads, v_rows.pks, v_rows.keys,
                                        v_rows.e3, v_rows.e4);
    END IF;

    -- Written positions answer from the claim; the others (live keys, repeats of a key inside
    -- the call) from the claim row, which holds the id of the event the key stands for.
    RETURN QUERY
        SELECT u.o::int,
               CASE WHEN c.id IS NOT NULL THEN c.id
                    ELSE (SELECT i.event_id FROM pgque.idem i WHERE i.queue_id = q.queue_id AND i.idem_key = u.k) END,
               c.id IS NULL
          FROM unnest(i_idem_keys) WITH ORDINALITY AS u(k, o)
          LEFT JOIN unnest(v_claim_ords, v_claim_ids) AS c(o, id) ON c.o = u.o
         ORDER BY u.o;
END
$$;

-- The live idempotency claims of a queue (admin): the key, the event it stands for and when it
-- expires, soonest-expiring last; only keys starting with i_key_prefix when given, at most i_limit.
CREATE OR REPLACE FUNCTION pgque.list_idem_keys(i_queue text, i_key_prefix text DEFAULT NULL, i_limit int DEFAULT 100)
RETURNS TABLE (idem_key text, event_id bigint, expires_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue);
BEGIN
    IF i_limit IS NULL OR i_limit < 1 THEN
        RAISE EXCEPTION 'limit must be >= 1, got %', i_limit USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    RETURN QUERY
        SELECT i.idem_key, i.event_id, i.expires_at FROM pgque.idem i
         WHERE i.queue_id = q.queue_id AND i.expires_at > clock_timestamp()
           AND (i_key_prefix IS NULL OR starts_with(i.idem_key, i_key_prefix))
         ORDER BY i.expires_at DESC, i.idem_key
         LIMIT i_limit;
END
$$;

-- Releases one idempotency claim of a queue (admin): the next send_idem of the key writes a new
-- event. True when a live claim was released. A claim a producer has not committed yet is not
-- there to release (false; it stands once committed); one a producer is renewing is waited for.
CREATE OR REPLACE FUNCTION pgque.release_idem_key(i_queue text, i_idem_key text)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue);
BEGIN
    DELETE FROM pgque.idem i
     WHERE i.queue_id = q.queue_id AND i.idem_key = i_idem_key AND i.expires_at > clock_timestamp();
    RETURN FOUND;
END
$$;

-- Deletes up to 10,000 expired keys of the queue; returns 1 when there may be more.
CREATE OR REPLACE FUNCTION pgque.maint_idem(i_queue_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue_name);
    v_count int;
BEGIN
    -- A key a producer is claiming right now is left for the next round: maintenance never
    -- waits behind producers.
    DELETE FROM pgque.idem i
     WHERE i.ctid = ANY (ARRAY(SELECT x.ctid FROM pgque.idem x
                                WHERE x.queue_id = q.queue_id AND x.expires_at < clock_timestamp()
                                LIMIT 10000 FOR UPDATE SKIP LOCKED));
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN CASE WHEN v_count >= 10000 THEN 1 ELSE 0 END;
END
$$;

CREATE OR REPLACE FUNCTION pgque.maint_idem()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_name text;
    v_more int := 0;
BEGIN
    FOR v_name IN SELECT queue_name FROM pgque.queue ORDER BY queue_name LOOP
        v_more := greatest(v_more, pgque.maint_idem(v_name));
    END LOOP;
    RETURN v_more;
END
$$;
