--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: leases. A worker claims a slot, every read and ack of the slot checks (and
-- renews) that the worker still holds it, and the worker gives it back at a batch boundary.
-- Reader role.
--
-- Layer: mode, partition (README.md). Calls the core and 55_partition.sql.

-- Internal: the label of a worker id, all an engine view or message shows of it: the id up to its
-- last '|' (the rest is the worker's secret), or the whole id when it has none.
CREATE OR REPLACE FUNCTION pgque.slot_worker_label(i_worker text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('|' IN i_worker) = 0 THEN
        RETURN i_worker;
    END IF;
    RETURN substr(i_worker, 1, length(i_worker) - position('|' IN reverse(i_worker)));
END
$$;

-- Internal: whether i_worker holds the lease of slot row i_lease (live or expired): the whole
-- worker id must hash to the lease's key, and the call must come from the login that claimed it.
-- A lease granted before leases had keys is held by its name alone, as then.
CREATE OR REPLACE FUNCTION pgque.slot_lease_holder(i_lease pgque.partition_slot, i_worker text)
RETURNS boolean
LANGUAGE plpgsql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_lease.lease_owner IS NULL OR i_worker IS NULL OR i_worker = '' THEN
        RETURN false;  -- a NULL or empty worker holds nothing
    END IF;
    IF i_lease.lease_key IS NULL THEN
        RETURN i_lease.lease_owner = i_worker;
    END IF;
    RETURN i_lease.lease_key = sha256(convert_to(i_worker, 'UTF8')) AND i_lease.lease_role = session_user;
END
$$;

-- Takes or renews the lease on one slot. Returns the lease epoch, or NULL when another live
-- worker holds it or the slot row is busy (never waits: a worker simply tries the next slot).
-- The epoch grows on every takeover, so side effects stamped with it expose zombies. The lease
-- records the worker id's label, a hash of the whole id and the claiming login
-- (slot_lease_holder): only that login, with that whole id, holds it.
CREATE OR REPLACE FUNCTION pgque.claim_slot(i_queue text, i_consumer text, i_slot int, i_worker text,
    i_ttl interval DEFAULT '30 seconds')
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_n int4;
    r pgque.partition_slot;
    v_now timestamptz;
BEGIN
    IF i_worker IS NULL OR i_worker = '' THEN
        RAISE EXCEPTION 'worker id must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    -- Compared as deadlines: an interval that is 1 second by PostgreSQL's rules ('-1 year 360 days
    -- 1 second') can still end in the past.
    v_now := clock_timestamp();
    IF i_ttl IS NULL OR NOT isfinite(i_ttl) OR v_now + i_ttl < v_now + interval '1 second' THEN
        RAISE EXCEPTION 'lease ttl must be >= 1 second, got %', i_ttl USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = 'The lease TTL must also be finite, and end in the future.';
    END IF;
    q := pgque.partition_check_names(i_queue, i_consumer);
    IF v_now + i_ttl > v_now + q.queue_lease_max_ttl THEN
        RAISE EXCEPTION 'lease ttl % is longer than the lease_max_ttl % of queue %', i_ttl, q.queue_lease_max_ttl, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
                  DETAIL = 'A slot whose holder died stays with it, and holds back rotation for the whole queue, until its lease ends.',
                  HINT = 'Renew a shorter lease more often, or have an admin raise the queue''s lease_max_ttl (set_queue_config).';
    END IF;
    v_n := pgque.partition_pinned_n(q, i_consumer);
    PERFORM pgque.slot_check_range(i_slot, v_n, i_consumer, i_queue);
    SELECT * INTO r FROM pgque.partition_slot
     WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        PERFORM 1 FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot;
        IF FOUND THEN
            RETURN NULL;
        END IF;
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    v_now := clock_timestamp();
    IF pgque.slot_lease_holder(r, i_worker) THEN
        UPDATE pgque.partition_slot
           SET lease_until = v_now + i_ttl, lease_ttl = i_ttl,
               lease_key = sha256(convert_to(i_worker, 'UTF8')), lease_role = session_user
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        RETURN r.epoch;
    END IF;
    IF r.lease_owner IS NULL OR r.lease_until <= v_now THEN
        UPDATE pgque.partition_slot
           SET lease_owner = pgque.slot_worker_label(i_worker), lease_key = sha256(convert_to(i_worker, 'UTF8')),
               lease_role = session_user, lease_until = v_now + i_ttl, lease_ttl = i_ttl, epoch = epoch + 1,
               lease_since = v_now
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        RETURN r.epoch + 1;
    END IF;
    RETURN NULL;
END
$$;

-- Gives the lease back, only at a batch boundary: releasing with a batch open would let a
-- successor process events this worker may still be working on.
CREATE OR REPLACE FUNCTION pgque.release_slot(i_queue text, i_consumer text, i_slot int, i_worker text)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_n int4 := pgque.partition_pinned_n(q, i_consumer);
    r pgque.partition_slot;
    v_batch bigint;
BEGIN
    SELECT * INTO r FROM pgque.partition_slot
     WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot
       FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    IF NOT pgque.slot_lease_holder(r, i_worker) THEN
        RETURN false;
    END IF;
    v_batch := (pgque.sub_lock(q.queue_id, pgque.slot_consumer_name(i_consumer, i_slot, v_n))).sub_batch;
    IF v_batch IS NOT NULL THEN
        RAISE EXCEPTION 'cannot release slot % of consumer % while batch % is open; ack the batch first',
            i_slot, i_consumer, v_batch USING ERRCODE = '55000';
    END IF;
    UPDATE pgque.partition_slot SET lease_owner = NULL, lease_until = NULL, lease_ttl = NULL, lease_key = NULL,
                                    lease_role = NULL, lease_since = clock_timestamp()
     WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
    RETURN true;
END
$$;

-- Internal: checks the set-up (N before any lease check, so a misconfigured caller learns about
-- N), then that i_worker holds the slot's lease; with i_renew it renews the lease and locks the
-- slot's subscription (the receive lock), without it neither: a read that opens nothing and may
-- run beside the worker's own acks and renewals (read-ahead). Returns the slot subscription.
CREATE OR REPLACE FUNCTION pgque.slot_check_lease(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_renew boolean)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    q pgque.queue;
    v_n int4;
    r pgque.partition_slot;
    s pgque.subscription;
BEGIN
    IF i_slot IS NULL OR i_n IS NULL THEN
        RAISE EXCEPTION 'queue, consumer, slot, and n must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    -- A NULL or empty worker holds no lease: it is fenced below, as any other non-holder.
    q := pgque.partition_check_names(i_queue, i_consumer);
    v_n := pgque.partition_pinned_n(q, i_consumer);
    IF v_n <> i_n THEN
        PERFORM pgque.partition_check_n(q, i_consumer, i_n);
        RAISE EXCEPTION 'wrong slot count for consumer % on queue %: pinned n=%, caller passed n=%',
            i_consumer, i_queue, v_n, i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    PERFORM pgque.slot_check_range(i_slot, v_n, i_consumer, i_queue);
    IF i_renew THEN
        SELECT * INTO r FROM pgque.partition_slot
         WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot
           FOR UPDATE;
    ELSE
        SELECT * INTO r FROM pgque.partition_slot
         WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot;
    END IF;
    IF NOT FOUND THEN
        -- A resize may have retired the slot while we waited for its row.
        PERFORM pgque.partition_check_n(q, i_consumer, i_n);
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    IF r.lease_owner IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not leased; call pgque.claim_slot() first',
            i_slot, i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ005';
    END IF;
    IF NOT pgque.slot_lease_holder(r, i_worker) THEN
        -- Labels only: a worker id's secret never appears in a message (nor in a view).
        RAISE EXCEPTION 'lease on slot % of consumer % on queue % is held by worker %, not %; fenced',
            i_slot, i_consumer, i_queue, r.lease_owner, pgque.slot_worker_label(i_worker)
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ004';
    END IF;
    IF i_renew THEN
        -- Every read and ack renews; an expired lease nobody took over is simply renewed.
        UPDATE pgque.partition_slot SET lease_until = clock_timestamp() + lease_ttl
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        s := pgque.sub_lock(q.queue_id, pgque.slot_consumer_name(i_consumer, i_slot, v_n));
    ELSE
        SELECT sub.* INTO s FROM pgque.subscription sub JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
         WHERE sub.sub_queue = q.queue_id AND c.co_name = pgque.slot_consumer_name(i_consumer, i_slot, v_n);
    END IF;
    IF s.sub_id IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % is not subscribed; call pgque.subscribe_slot()', i_slot, i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
    RETURN s;
END
$$;

-- Internal: the guard in front of every slot read and ack: slot_check_lease, renewing the lease
-- and taking the receive lock.
CREATE OR REPLACE FUNCTION pgque.slot_guard(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, true);
END
$$;
