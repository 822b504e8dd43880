--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Queue life cycle: create, drop, configure. Admin only.
--
-- Layer: operations (README.md), above every layer whose state a queue carries: dropping a queue
-- removes the consumers of every mode (52_coop.sql, the partition files), its producers'
-- idempotency keys (65_idem.sql) and its delayed events (66_delayed.sql). Calls any earlier file.

CREATE OR REPLACE FUNCTION pgque.create_queue(i_queue_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_id    int4;
    v_pfx   text;
    v_table text;
    v_ntables int4;
BEGIN
    IF i_queue_name IS NULL THEN
        RAISE EXCEPTION 'Invalid NULL value' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', DETAIL = 'The queue name must not be NULL.';
    END IF;
    IF i_queue_name = '' THEN
        RAISE EXCEPTION 'queue name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    -- The NOTIFY channel pgque_<name> must fit PostgreSQL's 63-byte identifier limit.
    IF octet_length(i_queue_name) > 57 THEN
        RAISE EXCEPTION 'queue name too long: % bytes (max 57). The NOTIFY channel pgque_<name> must fit in 63 bytes.',
            octet_length(i_queue_name) USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    PERFORM 1 FROM pgque.queue WHERE queue_name = i_queue_name;
    IF FOUND THEN
        RETURN 0;
    END IF;

    -- Several sessions may create one queue at once (sink tasks auto-creating it). The check
    -- above cannot see a creator that has not committed; ON CONFLICT waits for it and, once it
    -- has committed, leaves its queue in place: every caller succeeds, one queue exists.
    v_id := nextval(pg_get_serial_sequence('pgque.queue', 'queue_id'));
    v_pfx := 'event_' || v_id;
    -- queue_extra_maint names the idempotency reaper from the start (PgQ's tools read it there);
    -- maint() runs it for every queue whatever the column says (70_rotation.sql).
    INSERT INTO pgque.queue (queue_id, queue_name, queue_switch_step1, queue_switch_step2,
                             queue_data_pfx, queue_event_seq, queue_tick_seq, queue_extra_maint)
    VALUES (v_id, i_queue_name, pgque.txid_current(), pgque.txid_current(),
            'pgque.' || v_pfx, 'pgque.' || v_pfx || '_id_seq', 'pgque.' || v_pfx || '_tick_seq',
            ARRAY['pgque.maint_idem'])
    ON CONFLICT (queue_name) DO NOTHING
    RETURNING queue_ntables INTO v_ntables;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;

    EXECUTE format('CREATE SEQUENCE pgque.%I', v_pfx || '_id_seq');
    EXECUTE format('CREATE SEQUENCE pgque.%I', v_pfx || '_tick_seq');
    EXECUTE format('CREATE TABLE pgque.%I () INHERITS (pgque.event_template)', v_pfx);
    FOR i IN 0 .. v_ntables - 1 LOOP
        v_table := v_pfx || '_' || i;
        -- Append-only tables emptied by TRUNCATE: nothing for autovacuum to do, no free space
        -- to leave on pages.
        EXECUTE format('CREATE TABLE pgque.%I () INHERITS (pgque.%I)
                        WITH (fillfactor = 100, autovacuum_enabled = false, toast.autovacuum_enabled = false)',
                       v_table, v_pfx);
        EXECUTE format('ALTER TABLE pgque.%I ALTER COLUMN ev_id SET DEFAULT nextval(%L)',
                       v_table, 'pgque.' || v_pfx || '_id_seq');
        EXECUTE format('CREATE INDEX %I ON pgque.%I (ev_txid)', v_table || '_txid_idx', v_table);
    END LOOP;
    PERFORM pgque.queue_grant_tables(v_id);

    -- The queue's row of the tickers' lock, and a first tick so that consumers can subscribe at once.
    INSERT INTO pgque.tick_guard (queue_id) VALUES (v_id);
    PERFORM pgque.tick_insert(v_id);
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.drop_queue(x_queue_name text, x_force boolean)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    c record;
    v_forget int4[];
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = x_queue_name FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'No such event queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', x_queue_name);
    END IF;
    IF EXISTS (SELECT 1 FROM pgque.subscription WHERE sub_queue = q.queue_id) THEN
        IF NOT coalesce(x_force, false) THEN
            RAISE EXCEPTION 'cannot drop queue, consumers still attached'
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55006', DETAIL = format('queue: %s', x_queue_name),
                      HINT = 'Unsubscribe the consumers first, or call drop_queue(name, true).';
        END IF;
        -- Cooperative workers first (open windows and all), so their main is plain by its turn.
        FOR c IN SELECT co.co_name, s.sub_role FROM pgque.subscription s JOIN pgque.consumer co ON co.co_id = s.sub_consumer
                  WHERE s.sub_queue = q.queue_id ORDER BY s.sub_role = 'coop_main' LOOP
            IF c.sub_role = 'coop_member' THEN
                PERFORM pgque.coop_unregister_member(x_queue_name, c.co_name, 1);
            ELSE
                PERFORM pgque.sub_unregister(x_queue_name, c.co_name);
            END IF;
        END LOOP;
    END IF;
    DELETE FROM pgque.retry_queue WHERE ev_queue = q.queue_id;
    DELETE FROM pgque.idem WHERE queue_id = q.queue_id;
    DELETE FROM pgque.delayed_events WHERE de_queue_name = q.queue_name;
    -- The queue's dead letters go with it (an admin's decision), and so do the consumer rows
    -- that only they kept.
    WITH gone AS (DELETE FROM pgque.dead_letter WHERE dl_queue_id = q.queue_id RETURNING dl_consumer_id)
    SELECT array_agg(DISTINCT dl_consumer_id) INTO v_forget FROM gone;
    PERFORM pgque.consumer_forget(v_forget);
    EXECUTE format('DROP TABLE IF EXISTS %s CASCADE', pgque.event_table_name(q.queue_id, NULL));
    DELETE FROM pgque.tick WHERE tick_queue = q.queue_id;
    DELETE FROM pgque.tick_guard WHERE queue_id = q.queue_id;
    EXECUTE format('DROP SEQUENCE IF EXISTS %s', pgque.event_seq_name(q.queue_id));
    EXECUTE format('DROP SEQUENCE IF EXISTS %s', pgque.tick_seq_name(q.queue_id));
    DELETE FROM pgque.queue WHERE queue_id = q.queue_id;
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.drop_queue(x_queue_name text)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.drop_queue(x_queue_name, false)
$$;

CREATE OR REPLACE FUNCTION pgque.set_queue_config(x_queue_name text, x_param_name text, x_param_value text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_param text := lower(regexp_replace(coalesce(x_param_name, ''), '^queue_', ''));
    v_column text;
    v_type text;
    v_ok boolean;
BEGIN
    PERFORM 1 FROM pgque.queue WHERE queue_name = x_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'No such event queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', x_queue_name);
    END IF;
    IF x_param_name IS NULL THEN
        RAISE EXCEPTION 'Invalid NULL value' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', DETAIL = 'The parameter name must not be NULL.';
    END IF;
    -- Only these columns may be set; the column name comes from this list, never from input.
    SELECT col, typ INTO v_column, v_type FROM (VALUES
        ('ticker_max_count',   'queue_ticker_max_count',   'int4'),
        ('ticker_max_lag',     'queue_ticker_max_lag',     'interval'),
        ('ticker_idle_period', 'queue_ticker_idle_period', 'interval'),
        ('ticker_paused',      'queue_ticker_paused',      'boolean'),
        ('rotation_period',    'queue_rotation_period',    'interval'),
        ('external_ticker',    'queue_external_ticker',    'boolean'),
        ('disable_insert',     'queue_disable_insert',     'boolean'),
        ('max_retries',        'queue_max_retries',        'int4'),
        ('idem_max_ttl',       'queue_idem_max_ttl',       'interval'),
        ('lease_max_ttl',      'queue_lease_max_ttl',      'interval')
    ) AS p(name, col, typ) WHERE p.name = v_param;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cannot change parameter "%"', x_param_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            HINT = 'Allowed: ticker_max_count, ticker_max_lag, ticker_idle_period, ticker_paused, rotation_period, external_ticker, disable_insert, max_retries, idem_max_ttl, lease_max_ttl.';
    END IF;
    IF x_param_value IS NOT NULL THEN
        BEGIN
            v_ok := CASE v_type
                        WHEN 'int4' THEN x_param_value::int4 >= CASE WHEN v_param = 'max_retries' THEN 0 ELSE 1 END
                        WHEN 'interval' THEN x_param_value::interval > interval '0' AND isfinite(x_param_value::interval)
                        ELSE x_param_value::boolean IS NOT NULL END;
        EXCEPTION WHEN data_exception THEN
            RAISE EXCEPTION 'invalid value for %: % (expected a % %)', v_param, x_param_value,
                CASE WHEN v_type = 'boolean' THEN '' WHEN v_param = 'max_retries' THEN 'non-negative' ELSE 'positive, finite' END,
                v_type USING ERRCODE = '22023';
        END;
        IF NOT v_ok THEN
            -- the value as PostgreSQL prints it, like PgQue: '0 seconds' shows as 00:00:00
            RAISE EXCEPTION 'set_queue_config: % must be % 0, got %', v_param,
                CASE WHEN v_param = 'max_retries' THEN '>=' ELSE '>' END,
                CASE WHEN v_type = 'interval' THEN x_param_value::interval::text ELSE x_param_value::int4::text END
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = CASE WHEN v_type = 'interval' THEN 'Intervals must also be finite.'
                                                     ELSE 'A whole number.' END;
        END IF;
        EXECUTE format('UPDATE pgque.queue SET %I = $1::%s WHERE queue_name = $2', v_column, v_type)
            USING x_param_value, x_queue_name;
    ELSE
        EXECUTE format('UPDATE pgque.queue SET %I = DEFAULT WHERE queue_name = $1', v_column)
            USING x_queue_name;
    END IF;
    RETURN 1;
END
$$;

-- PgQue's configuring create_queue: creates the queue (or finds it) and sets each key of
-- i_options as set_queue_config() would (max_retries, rotation_period, ticker_max_count, ...; a
-- JSON null resets one to its default). Returns what create_queue(i_queue) returns. All or
-- nothing: an unknown key or a bad value raises, and the queue is not created.
CREATE OR REPLACE FUNCTION pgque.create_queue(i_queue text, i_options jsonb)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_created integer;
    o record;
BEGIN
    IF i_options IS NOT NULL AND jsonb_typeof(i_options) <> 'object' THEN
        RAISE EXCEPTION 'queue options must be a JSON object, got %', jsonb_typeof(i_options) USING ERRCODE = '22023',
            HINT = 'For example {"max_retries": 3, "rotation_period": "1 hour"}.';
    END IF;
    v_created := pgque.create_queue(i_queue);
    FOR o IN SELECT key, value #>> '{}' AS value FROM jsonb_each(coalesce(i_options, '{}'::jsonb)) LOOP
        PERFORM pgque.set_queue_config(i_queue, o.key, o.value);
    END LOOP;
    RETURN v_created;
END
$$;

-- PgQue's shorthands for set_queue_config(queue, 'ticker_paused', ...): a paused queue gets no
-- ticks (ticker() skips it, ticker(queue) and force_tick refuse it), so its consumers get no new
-- batches; producers go on sending.
CREATE OR REPLACE FUNCTION pgque.pause_queue(i_queue text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.set_queue_config(i_queue, 'ticker_paused', 'true');
END
$$;

CREATE OR REPLACE FUNCTION pgque.resume_queue(i_queue text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.set_queue_config(i_queue, 'ticker_paused', 'false');
END
$$;
