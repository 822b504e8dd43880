-- The ticker: a tick stores a snapshot; two consecutive ticks delimit a batch. Admin only.

-- Internal: write one tick for the queue and wake listeners. Unconditional.
CREATE OR REPLACE FUNCTION pgque.insert_tick(i_queue_id int4)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
DECLARE
    q pgque.queue;
    v_tick bigint;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_id = i_queue_id;
    INSERT INTO pgque.tick (tick_queue, tick_id, tick_event_seq)
    VALUES (q.queue_id, nextval(q.queue_tick_seq::regclass), pgque.seq_last_value(q.queue_event_seq))
    RETURNING tick_id INTO v_tick;
    -- A lossy wake-up hint for consumers that LISTEN; correctness never depends on it.
    IF q.queue_tick_requested THEN
        UPDATE pgque.queue SET queue_tick_requested = false WHERE queue_id = q.queue_id;
    END IF;
    PERFORM pg_notify('pgque_' || q.queue_name, v_tick::text);
    RETURN v_tick;
END
$$;

-- Internal: refuses to tick a queue whose ticks come from elsewhere or are paused.
CREATE OR REPLACE FUNCTION pgque.check_tickable(q pgque.queue, i_external boolean)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog AS $$
BEGIN
    IF q.queue_external_ticker AND NOT i_external THEN
        RAISE EXCEPTION 'queue % has an external ticker', q.queue_name USING ERRCODE = '55000';
    END IF;
    IF i_external AND NOT q.queue_external_ticker THEN
        RAISE EXCEPTION 'queue % does not have an external ticker', q.queue_name USING ERRCODE = '55000';
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'ticker is paused for queue %', q.queue_name USING ERRCODE = '55000';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.ticker(i_queue_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
    v_prev_time timestamptz;
    v_lag interval;
    v_new bigint;
    v_prev_gap interval;
BEGIN
    q := pgque.find_queue(i_queue_name);
    PERFORM pgque.check_tickable(q, false);

    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
    IF NOT FOUND THEN
        RETURN pgque.insert_tick(q.queue_id);
    END IF;
    IF pg_snapshot_xmin(v_last.tick_snapshot) > pg_snapshot_xmax(pg_current_snapshot()) THEN
        RAISE EXCEPTION 'last tick of queue % is from the future (xmin % > current %): restored or corrupt state',
            i_queue_name, pg_snapshot_xmin(v_last.tick_snapshot), pg_snapshot_xmax(pg_current_snapshot()) USING ERRCODE = 'XX000';
    END IF;

    IF q.queue_tick_requested THEN
        RETURN pgque.insert_tick(q.queue_id);
    END IF;
    v_lag := now() - v_last.tick_time;
    v_new := pgque.seq_last_value(q.queue_event_seq) - v_last.tick_event_seq;

    IF v_new > 0 THEN
        IF v_new < q.queue_ticker_max_count AND v_lag < q.queue_ticker_max_lag THEN
            RETURN NULL;
        END IF;
    ELSE
        -- Idle: tick spacing doubles until it reaches the idle period.
        SELECT tick_time INTO v_prev_time FROM pgque.tick
         WHERE tick_queue = q.queue_id AND tick_id < v_last.tick_id
         ORDER BY tick_id DESC LIMIT 1;
        v_prev_gap := coalesce(v_last.tick_time - v_prev_time, interval '0');
        IF v_lag < q.queue_ticker_max_lag / 2
           OR (v_lag < 2 * v_prev_gap AND v_lag < q.queue_ticker_idle_period) THEN
            RETURN NULL;
        END IF;
    END IF;
    RETURN pgque.insert_tick(q.queue_id);
END
$$;

CREATE OR REPLACE FUNCTION pgque.ticker()
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
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
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
BEGIN
    q := pgque.find_queue(i_queue_name);
    PERFORM pgque.check_tickable(q, true);
    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
    IF FOUND AND i_tick_id <= v_last.tick_id THEN
        RAISE EXCEPTION 'tick id % must be greater than the last tick %', i_tick_id, v_last.tick_id USING ERRCODE = '22023';
    END IF;
    IF FOUND AND i_event_seq < v_last.tick_event_seq THEN
        RAISE EXCEPTION 'event sequence % is behind the last tick''s %', i_event_seq, v_last.tick_event_seq USING ERRCODE = '22023';
    END IF;
    -- Move the sequences forward, never back.
    IF pgque.seq_last_value(q.queue_tick_seq) < i_tick_id THEN
        PERFORM setval(q.queue_tick_seq::regclass, i_tick_id);
    END IF;
    IF pgque.seq_last_value(q.queue_event_seq) < i_event_seq THEN
        PERFORM setval(q.queue_event_seq::regclass, i_event_seq);
    END IF;
    INSERT INTO pgque.tick (tick_queue, tick_id, tick_time, tick_event_seq)
    VALUES (q.queue_id, i_tick_id, i_orig_timestamp, i_event_seq);
    PERFORM pg_notify('pgque_' || q.queue_name, i_tick_id::text);
    RETURN i_tick_id;
END
$$;

-- Does not tick: makes the next ticker() call tick. (PgQ bumps the event sequence for this; a
-- flag does the same without inflating every pending-event estimate, and without a setval that
-- could race with producers.)
CREATE OR REPLACE FUNCTION pgque.force_next_tick(i_queue_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
DECLARE
    q pgque.queue;
    v_tick bigint;
BEGIN
    q := pgque.find_queue(i_queue_name);
    PERFORM pgque.check_tickable(q, false);
    UPDATE pgque.queue SET queue_tick_requested = true WHERE queue_id = q.queue_id AND NOT queue_tick_requested;
    SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
    RETURN v_tick;
END
$$;

CREATE OR REPLACE FUNCTION pgque.force_tick(i_queue_name text)
RETURNS bigint
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
    SELECT pgque.force_next_tick(i_queue_name)
$$;

-- One round of a ticker that runs every i_period: ticks what pgque.ticker() ticks, and also
-- every queue whose events have waited i_period since its last tick, whatever the queue's
-- ticker_max_count and ticker_max_lag (events counted by the last tick whose transaction
-- committed only after it included); so run every i_period it bounds how long events wait
-- for a tick. Rounds run one at a time in the whole database: a round that finds another one
-- running returns NULL at once (a transaction-scoped advisory lock), so any number of callers
-- can share the duty and whoever is alive carries it. Otherwise returns how many queues ticked.
CREATE OR REPLACE FUNCTION pgque.ticker_round(i_period interval)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
    v_tick bigint;
    v_due boolean;
    v_count bigint := 0;
BEGIN
    IF i_period IS NULL OR i_period <= interval '0' THEN
        RAISE EXCEPTION 'ticker period must be positive, was %', i_period USING ERRCODE = '22023';
    END IF;
    IF NOT pg_try_advisory_xact_lock(hashtext('pgque.ticker_round')) THEN
        RETURN NULL;
    END IF;
    FOR q IN SELECT * FROM pgque.queue
              WHERE NOT queue_external_ticker AND NOT queue_ticker_paused
              ORDER BY queue_name LOOP
        v_tick := pgque.ticker(q.queue_name);
        v_due := false;
        IF v_tick IS NULL THEN
            SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id ORDER BY tick_id DESC LIMIT 1;
            IF FOUND AND now() - v_last.tick_time >= i_period THEN
                v_due := pgque.seq_last_value(q.queue_event_seq) > v_last.tick_event_seq;
                IF NOT v_due THEN
                    -- The last tick may have counted events whose transaction was still running
                    -- when it was taken: they are in no batch yet, and the count alone would
                    -- not tick again for them. Tick once they are visible.
                    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s e WHERE e.ev_txid >= $1
                                       AND NOT pg_visible_in_snapshot(e.ev_txid, $2)
                                       AND pg_visible_in_snapshot(e.ev_txid, pg_current_snapshot()))',
                                   q.queue_data_pfx)
                       INTO v_due
                      USING pg_snapshot_xmin(v_last.tick_snapshot), v_last.tick_snapshot;
                END IF;
            END IF;
            IF v_due THEN
                v_tick := pgque.insert_tick(q.queue_id);
            END IF;
        END IF;
        IF v_tick IS NOT NULL THEN
            v_count := v_count + 1;
        END IF;
    END LOOP;
    RETURN v_count;
END
$$;
