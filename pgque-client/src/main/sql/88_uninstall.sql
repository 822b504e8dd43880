--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Removing the engine: what would be lost or dropped along, and uninstall(). The schema's owner
-- only.
--
-- Layer: on top (README.md). Calls any earlier file (82_scheduling.sql to remove the jobs).

-- Internal: the objects outside schema pgque that depend on something in it (a column of type
-- pgque.message in a user's table, a view over an engine table, a function taking one of its
-- types): DROP SCHEMA ... CASCADE would drop them silently.
CREATE OR REPLACE FUNCTION pgque.uninstall_dependents()
RETURNS TABLE (dependent text)
LANGUAGE sql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    WITH engine AS (
        SELECT 'pg_class'::regclass::oid AS classid, c.oid AS objid FROM pg_class c WHERE c.relnamespace = 'pgque'::regnamespace
        UNION ALL
        SELECT 'pg_type'::regclass::oid, t.oid FROM pg_type t WHERE t.typnamespace = 'pgque'::regnamespace
        UNION ALL
        SELECT 'pg_proc'::regclass::oid, p.oid FROM pg_proc p WHERE p.pronamespace = 'pgque'::regnamespace
    ), dep AS (
        SELECT DISTINCT d.classid, d.objid, d.objsubid
          FROM pg_depend d JOIN engine e ON e.classid = d.refclassid AND e.objid = d.refobjid
         WHERE d.deptype IN ('n', 'a')
    ), placed AS (
        -- The schema each dependent object lives in (a rule, trigger, default or constraint: its table's).
        SELECT dep.*,
               CASE dep.classid
                   WHEN 'pg_class'::regclass THEN (SELECT c.relnamespace FROM pg_class c WHERE c.oid = dep.objid)
                   WHEN 'pg_type'::regclass THEN (SELECT t.typnamespace FROM pg_type t WHERE t.oid = dep.objid)
                   WHEN 'pg_proc'::regclass THEN (SELECT p.pronamespace FROM pg_proc p WHERE p.oid = dep.objid)
                   WHEN 'pg_rewrite'::regclass THEN (SELECT c.relnamespace FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class WHERE r.oid = dep.objid)
                   WHEN 'pg_trigger'::regclass THEN (SELECT c.relnamespace FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid WHERE g.oid = dep.objid)
                   WHEN 'pg_attrdef'::regclass THEN (SELECT c.relnamespace FROM pg_attrdef a JOIN pg_class c ON c.oid = a.adrelid WHERE a.oid = dep.objid)
                   WHEN 'pg_constraint'::regclass THEN (SELECT coalesce(nullif(k.connamespace, 0), c.relnamespace)
                                                          FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid WHERE k.oid = dep.objid)
                   WHEN 'pg_policy'::regclass THEN (SELECT c.relnamespace FROM pg_policy y JOIN pg_class c ON c.oid = y.polrelid WHERE y.oid = dep.objid)
               END AS nsp
          FROM dep
    )
    SELECT pg_describe_object(p.classid, p.objid, p.objsubid)
      FROM placed p
     WHERE p.nsp IS DISTINCT FROM 'pgque'::regnamespace
     ORDER BY 1
$$;

-- Internal: the queues that still hold events some consumer has not acked (events in the queue's
-- tables that its cursor's tick does not cover, ticked or not), events of a queue no consumer
-- subscribed to, held delayed events, retry events or dead letters, with what they hold.
CREATE OR REPLACE FUNCTION pgque.uninstall_unconsumed()
RETURNS TABLE (queue_name text, unconsumed text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s record;
    v_count bigint;
    v_parts text[];
BEGIN
    FOR q IN SELECT * FROM pgque.queue ORDER BY pgque.queue.queue_name LOOP
        v_parts := '{}';
        -- Events no consumer has subscribed to are unconsumed too: nobody has read them.
        IF NOT EXISTS (SELECT 1 FROM pgque.subscription sub WHERE sub.sub_queue = q.queue_id) THEN
            EXECUTE format('SELECT count(*) FROM %s', pgque.event_table_name(q.queue_id, NULL)) INTO v_count;
            IF v_count > 0 THEN
                v_parts := v_parts || format('%s event(s) and no consumer', v_count);
            END IF;
        END IF;
        FOR s IN SELECT c.co_name, sub.sub_id, t.tick_snapshot
                   FROM pgque.subscription sub
                   JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
                   JOIN pgque.tick t ON t.tick_queue = sub.sub_queue AND t.tick_id = sub.sub_last_tick
                  WHERE sub.sub_queue = q.queue_id
                  ORDER BY c.co_name LOOP
            EXECUTE format('SELECT count(*) FROM %s e WHERE NOT pg_visible_in_snapshot(e.ev_txid, $1)
                              AND (e.ev_owner IS NULL OR e.ev_owner = $2)', pgque.event_table_name(q.queue_id, NULL))
               INTO v_count USING s.tick_snapshot, s.sub_id;
            IF v_count > 0 THEN
                v_parts := v_parts || format('%s event(s) not yet acked by consumer %s', v_count, s.co_name);
            END IF;
        END LOOP;
        SELECT count(*) INTO v_count FROM pgque.delayed_events d WHERE d.de_queue_name = q.queue_name;
        IF v_count > 0 THEN
            v_parts := v_parts || format('%s delayed event(s) held', v_count);
        END IF;
        SELECT count(*) INTO v_count FROM pgque.retry_queue r WHERE r.ev_queue = q.queue_id;
        IF v_count > 0 THEN
            v_parts := v_parts || format('%s retry event(s)', v_count);
        END IF;
        SELECT count(*) INTO v_count FROM pgque.dead_letter d WHERE d.dl_queue_id = q.queue_id;
        IF v_count > 0 THEN
            v_parts := v_parts || format('%s dead letter(s)', v_count);
        END IF;
        IF cardinality(v_parts) > 0 THEN
            queue_name := q.queue_name;
            unconsumed := array_to_string(v_parts, ', ');
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;

-- Removes the engine: unschedules its jobs and drops schema pgque with every queue and event in
-- it. The roles stay (they are cluster-wide and may be granted elsewhere). Only the schema's
-- owner (the installer) may call it; it runs with the caller's rights. Refuses, listing them,
-- while objects outside the schema depend on it (DROP ... CASCADE would take them along) or
-- queues still hold events that consumers have not acked, or dead letters; i_force removes the
-- engine anyway (and those dependent objects with it).
CREATE OR REPLACE FUNCTION pgque.uninstall(i_force boolean)
RETURNS void
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_owner regrole;
    v_dependents text;
    v_unconsumed text;
BEGIN
    SELECT nspowner::regrole INTO v_owner FROM pg_namespace WHERE nspname = 'pgque';
    IF NOT pg_has_role(current_user, v_owner, 'USAGE')
       AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
        RAISE EXCEPTION 'permission denied: only the owner of schema pgque (%) may uninstall the engine', v_owner
            USING ERRCODE = '42501';
    END IF;
    IF NOT coalesce(i_force, false) THEN
        SELECT string_agg(dependent, '; ') INTO v_dependents FROM pgque.uninstall_dependents();
        IF v_dependents IS NOT NULL THEN
            RAISE EXCEPTION 'cannot uninstall pgque: objects outside schema pgque depend on it: %', v_dependents
                USING ERRCODE = '2BP01',
                      HINT = 'Drop or change them first, or call pgque.uninstall(true) to drop them with the engine.';
        END IF;
        SELECT string_agg(format('queue %s: %s', queue_name, unconsumed), '; ') INTO v_unconsumed
          FROM pgque.uninstall_unconsumed();
        IF v_unconsumed IS NOT NULL THEN
            RAISE EXCEPTION 'cannot uninstall pgque: queues still hold unconsumed events: %', v_unconsumed
                USING ERRCODE = '55006',
                      HINT = 'Let the consumers catch up (or unsubscribe them), replay or purge the dead letters, or call pgque.uninstall(true) to drop everything.';
        END IF;
    END IF;
    PERFORM pgque.stop();
    PERFORM pgque.timetable_stop_jobs();
    DROP SCHEMA pgque CASCADE;
END
$$;

-- PgQue's call: refuses as uninstall(false) does, which on a clean install means it removes it.
CREATE OR REPLACE FUNCTION pgque.uninstall()
RETURNS void
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.uninstall(false);
END
$$;
