--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- What a slot batch costs the server on the source's steady path, in one session with hot caches:
-- 300 ticks of 100 keyed ~1 KB events (10 sends of 10), each tick one ticker round, then for each
-- of 4 slots the one statement a slot that keeps up runs (ack_receive_partitioned: the lease, the
-- ack of its last batch, the next batch opened and read), each step its own transaction. Run as the
-- engine's owner on a database with the engine installed; it creates and drops queue slot_profile.
-- Last, 1,000 ticker rounds that find nothing due (the rounds of a source's other tasks).
--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f pgque-benchmarks/src/main/sql/slot-profile.sql
SELECT pgque.create_queue('slot_profile');
SELECT pgque.subscribe_partitioned('slot_profile', 'c', 4);
SELECT count(pgque.claim_slot('slot_profile', 'c', s, 'profile|secret', '10 minutes')) AS claimed
  FROM generate_series(0, 3) s;

DO $$
DECLARE
    v_types text[] := array_fill('profile.event'::text, ARRAY[10]);
    v_payloads text[] := ARRAY(SELECT '{"v":"' || repeat('x', 1000) || '"}' FROM generate_series(1, 10));
    v_keys text[];
    v_batches bigint[] := ARRAY[NULL, NULL, NULL, NULL]::bigint[];
    v_batch bigint;
    v_events int;
    v_read bigint := 0;
    t0 timestamptz;
    v_send float8 := 0;
    v_tick float8 := 0;
    v_slot float8 := 0;
BEGIN
    FOR it IN 1..300 LOOP
        t0 := clock_timestamp();
        FOR j IN 1..10 LOOP
            v_keys := ARRAY(SELECT 'key-' || ((it * 10 + j) * 10 + g) % 997 FROM generate_series(1, 10) g);
            PERFORM pgque.send_events('slot_profile', v_types, v_payloads, v_keys);
            COMMIT;
        END LOOP;
        v_send := v_send + extract(epoch FROM clock_timestamp() - t0);
        t0 := clock_timestamp();
        PERFORM pgque.ticker_round('1 millisecond');
        COMMIT;
        v_tick := v_tick + extract(epoch FROM clock_timestamp() - t0);
        t0 := clock_timestamp();
        FOR s IN 0..3 LOOP
            SELECT max(m.batch_id), count(*) INTO v_batch, v_events
              FROM pgque.ack_receive_partitioned('slot_profile', 'c', s, 4, 'profile|secret', v_batches[s + 1], 1000, 2500) m;
            v_batches[s + 1] := coalesce(v_batch, v_batches[s + 1]);
            v_read := v_read + v_events;
            COMMIT;
        END LOOP;
        v_slot := v_slot + extract(epoch FROM clock_timestamp() - t0);
    END LOOP;
    RAISE NOTICE 'events read: % of 30000; µs a 10-event send: %, a ticking round: %, a slot batch: %, all with their commits',
        v_read, round((v_send / 3000 * 1e6)::numeric), round((v_tick / 300 * 1e6)::numeric),
        round((v_slot / 1200 * 1e6)::numeric);
END $$;

SELECT pgque.send('slot_profile', 'waiting'); -- one event waits, below every threshold
DO $$
DECLARE
    t0 timestamptz := clock_timestamp();
    v_writes int := 0;
BEGIN
    FOR i IN 1..1000 LOOP
        PERFORM pgque.ticker_round('1 hour');
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            v_writes := v_writes + 1;
        END IF;
        COMMIT;
    END LOOP;
    RAISE NOTICE 'µs a ticker round that finds nothing due: %, with a transaction id: % of 1000',
        round((extract(epoch FROM clock_timestamp() - t0) / 1000 * 1e6)::numeric), v_writes;
END $$;

SELECT pgque.drop_queue('slot_profile', true);
