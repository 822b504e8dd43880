--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- The ticker: a tick stores a snapshot; two consecutive ticks delimit a batch. Ticker role (forcing
-- a tick and the four-argument ticker of an external tick source: admin).
--
-- Layer: core (README.md). Calls 20_queue.sql.

-- PgQ's reading of a sequence: its last_value, whatever is_called says (a fresh sequence reads
-- 1, as it does after its first nextval). The ticker counts new events with it, exactly as PgQ
-- does, so a fresh queue's very first event is not counted as new -- the idle rule below ticks it.
-- Runs with the caller's rights: reading a sequence needs SELECT on it.
CREATE OR REPLACE FUNCTION pgque.seq_getval(i_seq_name text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_value bigint;
BEGIN
    EXECUTE format('SELECT last_value FROM %s', i_seq_name::regclass) INTO v_value;
    RETURN v_value;
END
$$;

-- Internal: write one tick for the queue and wake listeners. Unconditional.
CREATE OR REPLACE FUNCTION pgque.tick_insert(i_queue_id int4)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_tick bigint;
BEGIN
    -- One tick writer per queue at a time, so tick ids and snapshots ascend together even with
    -- two tickers; begin_resize's seal tick relies on it (no later tick may commit before it).
    -- The tickers' own lock (re-entrant for a ticker that already holds it): a second, separate
    -- lock taken in another order by another path could deadlock with it. Waits: only the
    -- engine's functions hold it, each for one tick.
    PERFORM pgque.tick_lock(i_queue_id, true);
    SELECT * INTO q FROM pgque.queue WHERE queue_id = i_queue_id;
    INSERT INTO pgque.tick (tick_queue, tick_id, tick_event_seq, tick_forced_ids)
    VALUES (q.queue_id, nextval(pgque.tick_seq_name(q.queue_id)::regclass),
            pgque.seq_getval(pgque.event_seq_name(q.queue_id)), q.queue_forced_ids)
    RETURNING tick_id INTO v_tick;
    -- A lossy wake-up hint for consumers that LISTEN; correctness never depends on it.
    IF q.queue_tick_requested THEN
        UPDATE pgque.queue SET queue_tick_requested = false WHERE queue_id = q.queue_id;
    END IF;
    PERFORM pg_notify('pgque_' || q.queue_name, v_tick::text);
    RETURN v_tick;
END
$$;

-- Internal: serialises the tickers of one queue (pg_cron's ticker loop, a connector's ticker
-- duty, an operator's call) until the caller commits; i_queue_id 0 serialises ticker_round().
-- Without it two tickers could both decide to tick and commit their ticks with snapshots out of
-- tick-id order, and a batch between them would hand out events again. A row of tick_guard
-- (10_tables.sql), not a lock of the queue row, which a producer's long REPEATABLE READ
-- transaction holds in share mode, nor an advisory lock, which any login may take. With i_wait
-- false it takes the lock only when free and says whether it did: a ticker skips a queue another
-- is ticking rather than queue behind it.
CREATE OR REPLACE FUNCTION pgque.tick_lock(i_queue_id int4, i_wait boolean)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_wait THEN
        PERFORM 1 FROM pgque.tick_guard WHERE queue_id = i_queue_id FOR UPDATE;
    ELSE
        PERFORM 1 FROM pgque.tick_guard WHERE queue_id = i_queue_id FOR UPDATE SKIP LOCKED;
    END IF;
    RETURN FOUND;
END
$$;

-- Hook, filled by 66_delayed.sql: moves into queue i_q the events held for it that are due now,
-- before the ticker decides on a tick, so that they count as new events; returns how many. Asked
-- on every tick decision, so its answer must cost an index probe when nothing is due. The core
-- holds no events.
CREATE OR REPLACE FUNCTION pgque.hook_due_events(i_q pgque.queue)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN 0;
END
$$;

-- Internal: PgQ's rule, whether ticker() ticks queue i_q, whose last tick is i_last: on request;
-- with new events, once there are ticker_max_count of them or the last tick is ticker_max_lag
-- old; idle, at a spacing that doubles from half of ticker_max_lag up to ticker_idle_period. Reads
-- and locks nothing but the event sequence and the queue's ticks: ticker() asks it under the
-- tickers' lock, ticker_round also before it takes any lock.
CREATE OR REPLACE FUNCTION pgque.tick_due(i_q pgque.queue, i_last pgque.tick)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    v_lag interval := now() - i_last.tick_time;
    v_new bigint;
    v_prev_time timestamptz;
BEGIN
    IF i_q.queue_tick_requested THEN
        RETURN true;
    END IF;
    v_new := pgque.seq_getval(pgque.event_seq_name(i_q.queue_id)) - i_last.tick_event_seq;
    IF v_new > 0 THEN
        RETURN v_new >= i_q.queue_ticker_max_count OR v_lag >= i_q.queue_ticker_max_lag;
    END IF;
    -- Idle: tick spacing doubles until it reaches the idle period. A queue whose last tick has no
    -- earlier one (a fresh queue) has no spacing to keep and is ticked at once.
    SELECT tick_time INTO v_prev_time FROM pgque.tick
     WHERE tick_queue = i_q.queue_id AND tick_id < i_last.tick_id
     ORDER BY tick_id DESC LIMIT 1;
    RETURN NOT FOUND OR (v_lag >= i_q.queue_ticker_max_lag / 2
                         AND (v_lag >= 2 * (i_last.tick_time - v_prev_time) OR v_lag >= i_q.queue_ticker_idle_period));
END
$$;

CREATE OR REPLACE FUNCTION pgque.ticker(i_queue_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
BEGIN
    SELECT queue_id INTO q.queue_id FROM pgque.queue WHERE queue_name = i_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no such queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', i_queue_name);
    END IF;
    IF NOT pgque.tick_lock(q.queue_id, false) THEN
        RETURN NULL;  -- another ticker is writing this queue's tick
    END IF;
    -- Read under the lock: the tick another ticker committed just before is seen.
    SELECT * INTO q FROM pgque.queue WHERE queue_id = q.queue_id;
    IF q.queue_external_ticker THEN
        RAISE EXCEPTION 'This queue has external tick source.' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s gets its ticks from the four-argument ticker().', i_queue_name);
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'Ticker has been paused for this queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has ticker_paused = true.', i_queue_name);
    END IF;
    PERFORM pgque.hook_due_events(q);

    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN pgque.tick_insert(q.queue_id);
    END IF;
    IF pg_snapshot_xmin(v_last.tick_snapshot) > pg_snapshot_xmax(pg_current_snapshot()) THEN
        RAISE EXCEPTION 'Invalid PgQ state: old xmin=%, old xmax=%, cur txid=%',
            pg_snapshot_xmin(v_last.tick_snapshot), pg_snapshot_xmax(v_last.tick_snapshot), pg_current_xact_id()
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000',
                  DETAIL = format('The last tick of queue %s is from the future: restored or corrupt state.', i_queue_name);
    END IF;

    IF pgque.tick_due(q, v_last) THEN
        RETURN pgque.tick_insert(q.queue_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION pgque.ticker()
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_name text;
    v_count bigint := 0;
BEGIN
    FOR v_name IN SELECT queue_name FROM pgque.queue
                   WHERE NOT queue_external_ticker AND NOT queue_ticker_paused
                   ORDER BY queue_name LOOP
        IF pgque.ticker(v_name) IS NOT NULL THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    RETURN v_count;
END
$$;

-- External ticker (e.g. ticks replayed from another database).
CREATE OR REPLACE FUNCTION pgque.ticker(i_queue_name text, i_tick_id bigint, i_orig_timestamp timestamptz, i_event_seq bigint)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
BEGIN
    q := pgque.queue_row(i_queue_name);
    PERFORM pgque.tick_lock(q.queue_id, true);
    IF NOT q.queue_external_ticker THEN
        RAISE EXCEPTION 'queue % is not configured for external ticker (set external_ticker = true first)', i_queue_name
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000';
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'queue % is paused (queue_ticker_paused = true)', i_queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000';
    END IF;
    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
    IF FOUND AND i_tick_id <= v_last.tick_id THEN
        RAISE EXCEPTION 'external ticker tick_id must be strictly greater than current max (% <= %)', i_tick_id, v_last.tick_id
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF FOUND AND i_event_seq < v_last.tick_event_seq THEN
        RAISE EXCEPTION 'external ticker event_seq must be >= previous tick (% < %)', i_event_seq, v_last.tick_event_seq
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    -- Move the sequences forward, never back.
    IF pgque.seq_last_value(pgque.tick_seq_name(q.queue_id)) < i_tick_id THEN
        PERFORM setval(pgque.tick_seq_name(q.queue_id)::regclass, i_tick_id);
    END IF;
    IF pgque.seq_last_value(pgque.event_seq_name(q.queue_id)) < i_event_seq THEN
        PERFORM setval(pgque.event_seq_name(q.queue_id)::regclass, i_event_seq);
    END IF;
    INSERT INTO pgque.tick (tick_queue, tick_id, tick_time, tick_event_seq, tick_forced_ids)
    VALUES (q.queue_id, i_tick_id, i_orig_timestamp, i_event_seq, q.queue_forced_ids);
    PERFORM pg_notify('pgque_' || q.queue_name, i_tick_id::text);
    RETURN i_tick_id;
END
$$;

-- Does not tick: makes the next ticker() call tick, by PgQ's rule: the queue's event sequence
-- advances by ticker_max_count * 2 + 1000, so the ticker sees enough new events. The ids are
-- drawn one by one (no setval that could hand a producer's id out twice) and counted in
-- queue_forced_ids, which this engine's own figures subtract; PgQ's ev_new and pending_events
-- include them, as there.
CREATE OR REPLACE FUNCTION pgque.force_next_tick(i_queue_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_tick bigint;
    v_bump bigint;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue not found: %', i_queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001';
    END IF;
    -- Under the tickers' lock: a tick records the sequence and the forced count together.
    PERFORM pgque.tick_lock(q.queue_id, true);
    SELECT * INTO q FROM pgque.queue WHERE queue_id = q.queue_id;
    IF q.queue_external_ticker THEN
        RAISE EXCEPTION 'queue % is configured for external ticker; force_tick does not apply', i_queue_name
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000', HINT = 'Push the next tick with the four-argument ticker().';
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'queue % is paused (queue_ticker_paused = true)', i_queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000';
    END IF;
    v_bump := q.queue_ticker_max_count::bigint * 2 + 1000;
    PERFORM nextval(pgque.event_seq_name(q.queue_id)::regclass) FROM generate_series(1, v_bump);
    UPDATE pgque.queue SET queue_forced_ids = queue_forced_ids + v_bump WHERE queue_id = q.queue_id;
    SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
    RETURN v_tick;
END
$$;

CREATE OR REPLACE FUNCTION pgque.force_tick(i_queue_name text)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.force_next_tick(i_queue_name)
$$;

-- PgQue's other name for force_tick: it primes the queue's event sequence so that the next
-- ticker() call ticks; it inserts no tick itself.
CREATE OR REPLACE FUNCTION pgque.prime_tick(i_queue_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.force_next_tick(i_queue_name);
END
$$;

-- Hook, filled by 66_delayed.sql: whether queue i_q holds events due now, which hook_due_events
-- would move. A read without locks, an index probe at most: ticker_round asks it before it
-- decides to lock anything. The core holds no events.
CREATE OR REPLACE FUNCTION pgque.hook_has_due_events(i_q pgque.queue)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
BEGIN
    RETURN false;
END
$$;

-- Internal: the round's own rule, whether a round of period i_period ticks queue i_q, whose last
-- tick is i_last, where ticker() would not: its events have waited i_period (events counted by
-- the last tick whose transaction committed only after it included). Locks nothing.
CREATE OR REPLACE FUNCTION pgque.tick_due_by_period(i_q pgque.queue, i_last pgque.tick, i_period interval)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_waiting boolean;
BEGIN
    IF now() - i_last.tick_time < i_period THEN
        RETURN false;
    END IF;
    IF pgque.seq_last_value(pgque.event_seq_name(i_q.queue_id)) > i_last.tick_event_seq THEN
        RETURN true;
    END IF;
    -- The last tick may have counted events whose transaction was still running when it was
    -- taken: they are in no batch yet, and the count alone would not tick again for them. Tick
    -- once they are visible.
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s e WHERE e.ev_txid >= $1
                       AND NOT pg_visible_in_snapshot(e.ev_txid, $2)
                       AND pg_visible_in_snapshot(e.ev_txid, pg_current_snapshot()))',
                   pgque.event_table_name(i_q.queue_id, NULL))
       INTO v_waiting
      USING pg_snapshot_xmin(i_last.tick_snapshot), i_last.tick_snapshot;
    RETURN v_waiting;
END
$$;

-- One round of a ticker that runs every i_period: ticks what pgque.ticker() ticks, and also
-- every queue whose events have waited i_period since its last tick, whatever the queue's
-- ticker_max_count and ticker_max_lag (events counted by the last tick whose transaction
-- committed only after it included); so run every i_period it bounds how long events wait
-- for a tick. A round that finds no queue any rule ticks (read without locks) writes nothing and
-- returns 0. Rounds that may tick run one at a time in the whole database: such a round that
-- finds another one running returns NULL at once (tick_lock's row 0), so any number of callers
-- can share the duty and whoever is alive carries it; a queue another ticker is ticking at that
-- moment is left to the next round. Otherwise returns how many queues ticked.
CREATE OR REPLACE FUNCTION pgque.ticker_round(i_period interval)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp
    SET enable_seqscan = off AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
    v_tick bigint;
    v_count bigint := 0;
    v_round_locked boolean := false;
BEGIN
    IF i_period IS NULL OR i_period <= interval '0' THEN
        RAISE EXCEPTION 'ticker period must be positive, was %', i_period USING ERRCODE = '22023';
    END IF;
    FOR q IN SELECT * FROM pgque.queue
              WHERE NOT queue_external_ticker AND NOT queue_ticker_paused
              ORDER BY queue_name LOOP
        -- First without a lock: a queue no rule ticks now costs the round a few reads.
        SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
        CONTINUE WHEN FOUND AND NOT pgque.hook_has_due_events(q) AND NOT pgque.tick_due(q, v_last)
                      AND NOT pgque.tick_due_by_period(q, v_last, i_period);
        IF NOT v_round_locked THEN
            IF NOT pgque.tick_lock(0, false) THEN
                RETURN NULL;
            END IF;
            v_round_locked := true;
        END IF;
        CONTINUE WHEN NOT pgque.tick_lock(q.queue_id, false);
        v_tick := pgque.ticker(q.queue_name);
        IF v_tick IS NULL THEN
            -- Read again under the lock: another ticker may have ticked since.
            SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
            IF FOUND AND pgque.tick_due_by_period(q, v_last, i_period) THEN
                v_tick := pgque.tick_insert(q.queue_id);
            END IF;
        END IF;
        IF v_tick IS NOT NULL THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    RETURN v_count;
END
$$;

-- The queue's events after its last tick, which no batch holds yet, and that tick's age: what a
-- ticker that stopped leaves behind (get_queue_info's ev_new without the ids a forced tick
-- drew). Definer: it reads the event sequence, which the readers of partition_slot_status may not.
CREATE OR REPLACE FUNCTION pgque.tick_backlog(i_queue_id int4, OUT unticked_events bigint, OUT ticker_lag interval)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT greatest(pgque.seq_getval(pgque.event_seq_name(q.queue_id)) - q.queue_forced_ids
                    - (t.tick_event_seq - t.tick_forced_ids), 0),
           now() - t.tick_time
      FROM pgque.queue q
      LEFT JOIN LATERAL (SELECT tk.tick_event_seq, tk.tick_forced_ids, tk.tick_time FROM pgque.tick tk WHERE tk.tick_queue = q.queue_id
                          ORDER BY tk.tick_id DESC LIMIT 1) t ON true
     WHERE q.queue_id = i_queue_id
$$;
