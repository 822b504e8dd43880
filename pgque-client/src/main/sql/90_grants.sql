--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Deny by default, then grant each role exactly its API. Re-applied on every install (after
-- revoking everything the roles had, so an upgrade drops rights an older engine granted), because
-- a newly created function is executable by PUBLIC until revoked. The role names are this
-- database's (pgque.role_name(), 01_guard.sql), so every statement is built with format().
--
-- No role gets a table right beyond SELECT: no INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER or
-- REFERENCES, and no sequence right beyond SELECT. Everything that changes the engine's state
-- goes through its functions, so no role can change what the owner's code executes.
--
-- Layer: grants, after every function exists (README.md). The API lists below are the public
-- surface; every other function is internal and revoked from the roles.

DO $grants$
DECLARE
    v_reader name := pgque.role_name('reader');
    v_writer name := pgque.role_name('writer');
    v_admin  name := pgque.role_name('admin');
    v_ticker name := pgque.role_name('ticker');
BEGIN
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA pgque FROM PUBLIC, %1$I, %2$I, %3$I, %4$I', v_reader, v_writer, v_admin, v_ticker);
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA pgque FROM PUBLIC, %1$I, %2$I, %3$I, %4$I', v_reader, v_writer, v_admin, v_ticker);
    EXECUTE format('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA pgque FROM PUBLIC, %1$I, %2$I, %3$I, %4$I', v_reader, v_writer, v_admin, v_ticker);
    EXECUTE format('REVOKE ALL ON ALL PROCEDURES IN SCHEMA pgque FROM PUBLIC, %1$I, %2$I, %3$I, %4$I', v_reader, v_writer, v_admin, v_ticker);
    REVOKE ALL ON SCHEMA pgque FROM PUBLIC;

    EXECUTE format('GRANT USAGE ON SCHEMA pgque TO %1$I, %2$I, %3$I, %4$I', v_reader, v_writer, v_admin, v_ticker);

    -- admin: read every table (the lease and dedup tables included: it may look, not touch),
    -- and execute every function except the internal helpers and uninstall() below.
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA pgque TO %I', v_admin);
    EXECUTE format('GRANT SELECT ON ALL SEQUENCES IN SCHEMA pgque TO %I', v_admin);
    EXECUTE format('GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA pgque TO %I', v_admin);
    EXECUTE format('GRANT EXECUTE ON ALL PROCEDURES IN SCHEMA pgque TO %I', v_admin);
    EXECUTE format('REVOKE SELECT ON pgque.idem FROM %I', v_admin);

    -- reader: read the bookkeeping tables and the event tables, consume.
    EXECUTE format('GRANT SELECT ON pgque.queue, pgque.consumer, pgque.subscription, pgque.tick, pgque.retry_queue,
                    pgque.dead_letter, pgque.config, pgque.engine_info, pgque.event_template TO %I', v_reader);
    PERFORM pgque.queue_grant_tables(q.queue_id) FROM pgque.queue q;
    EXECUTE format($f$GRANT EXECUTE ON FUNCTION
    pgque.register_consumer(text, text),
    pgque.register_consumer_at(text, text, bigint),
    pgque.unregister_consumer(text, text),
    pgque.subscribe(text, text),
    pgque.unsubscribe(text, text),
    pgque.next_batch(text, text),
    pgque.next_batch_info(text, text),
    pgque.next_batch_custom(text, text, interval, int4, interval),
    pgque.get_batch_events(bigint),
    pgque.finish_batch(bigint),
    pgque.event_retry(bigint, bigint, timestamptz),
    pgque.event_retry(bigint, bigint, integer),
    pgque.receive(text, text, int),
    pgque.read_batch(bigint, bigint, int),
    pgque.ack(bigint),
    pgque.nack(bigint, pgque.message, interval, text),
    pgque.get_queue_info(),
    pgque.get_queue_info(text),
    pgque.get_consumer_info(),
    pgque.get_consumer_info(text),
    pgque.get_consumer_info(text, text),
    pgque.get_batch_info(bigint),
    pgque.version(),
    pgque.dlq_inspect(text, int),
    pgque.consumer_stats(),
    pgque.queue_stats(),
    pgque.slot_stats(),
    pgque.queue_health(),
    pgque.otel_metrics(),
    pgque.stuck_consumers(interval),
    pgque.in_flight(text),
    pgque.throughput(text, interval, interval),
    pgque.error_rate(text, interval, interval),
    pgque.slot_of(text, int),
    pgque.slot_consumer_name(text, int, int),
    pgque.subscribe_partitioned(text, text, int),
    pgque.unsubscribe_partitioned(text, text),
    pgque.subscribe_slot(text, text, int, int),
    pgque.unsubscribe_slot(text, text, int),
    pgque.reposition_slot(text, text, int, bigint),
    pgque.claim_slot(text, text, int, text, interval),
    pgque.release_slot(text, text, int, text),
    pgque.receive_partitioned(text, text, int, int, text, int),
    pgque.receive_partitioned(text, text, int, int, text, int, bigint),
    pgque.read_batch_partitioned(text, text, int, int, text, bigint, int),
    pgque.read_ahead_window(text, text, int, int, text, bigint, bigint),
    pgque.read_ahead_page(text, text, int, int, text, bigint, bigint, int),
    pgque.read_ahead_query(text, text, int, int, text, bigint, bigint, int),
    pgque.read_ahead_slots_query(text, text, int, int, text, bigint, bigint, int, int[]),
    pgque.read_ahead_after_query(text, text, int, int, text, bigint, bigint, bigint, int, int[]),
    pgque.read_ahead_partitioned(text, text, int, int, text, bigint, bigint, bigint),
    pgque.open_read_ahead_partitioned(text, text, int, int, text, bigint, bigint, bigint),
    pgque.ack_partitioned(text, text, int, int, text),
    pgque.ack_partitioned(text, text, int, int, text, bigint),
    pgque.ack_receive_partitioned(text, text, int, int, text, bigint, int, bigint),
    pgque.nack_partitioned(text, text, int, int, text, pgque.message, interval, text),
    pgque.dead_letter_partitioned(text, text, int, int, text, bigint, text),
    pgque.pause_partitioned(text, text, int, int, text, pgque.message, interval, text),
    pgque.blocked_keys(text, text),
    pgque.retry_blocked_key(text, text, text),
    pgque.dead_letter_blocked_key(text, text, text, text),
    pgque.begin_resize(text, text, int),
    pgque.resize_ready(text, text),
    pgque.complete_resize(text, text),
    pgque.abort_resize(text, text),
    pgque.register_subconsumer(text, text, text, boolean),
    pgque.subscribe_subconsumer(text, text, text, boolean),
    pgque.unregister_subconsumer(text, text, text, integer),
    pgque.unsubscribe_subconsumer(text, text, text, integer),
    pgque.next_batch(text, text, text, interval),
    pgque.next_batch_custom(text, text, text, interval, int4, interval, interval),
    pgque.receive_coop(text, text, text, int, interval),
    pgque.touch_subconsumer(text, text, text),
    pgque.dead_letter_subconsumer(text, text, text, bigint, text),
    pgque.dlq_replay(bigint),
    pgque.dlq_replay_all(text)
    TO %I$f$, v_reader);
    EXECUTE format('GRANT SELECT ON pgque.partition_slot_status TO %I', v_reader);
    -- Called by partition_slot_status, so with its reader's rights.
    EXECUTE format('GRANT EXECUTE ON FUNCTION pgque.tick_backlog(int4) TO %I', v_reader);

    -- writer: produce. version() and get_queue_info(text) let a producer check its set-up.
    EXECUTE format($f$GRANT EXECUTE ON FUNCTION
    pgque.insert_event(text, text, text),
    pgque.insert_event(text, text, text, text, text, text, text),
    pgque.send(text, jsonb),
    pgque.send(text, text),
    pgque.send(text, text, jsonb),
    pgque.send(text, text, text),
    pgque.send(text, text, jsonb, text),
    pgque.send(text, text, text, text),
    pgque.send_batch(text, jsonb[]),
    pgque.send_batch(text, text[]),
    pgque.send_batch(text, text, jsonb[]),
    pgque.send_batch(text, text, text[]),
    pgque.send_events(text, text[], text[], text[], text[], text[], text[]),
    pgque.send_idem(text, text, text, text, interval, text),
    pgque.send_idem(text, text, jsonb, text, interval, text),
    pgque.send_idem_events(text, text[], text[], text[], interval, text[], text[], text[]),
    pgque.send_at(text, text, jsonb, timestamptz),
    pgque.send_at(text, text, text, timestamptz),
    pgque.send_at(text, text, jsonb, timestamptz, text),
    pgque.send_at(text, text, text, timestamptz, text),
    pgque.send_events_at(text, timestamptz[], text[], text[], text[], text[], text[], text[]),
    pgque.slot_of(text, int),
    pgque.sink_offsets(text),
    pgque.sink_commit_offsets(text, text[], int4[], bigint[], bigint[]),
    pgque.sink_set_offsets(text, text[], int4[], bigint[]),
    pgque.sink_reset_offsets(text),
    pgque.version(),
    pgque.get_queue_info(text)
    TO %I$f$, v_writer);

    -- ticker: tick and maintain, nothing else (a scheduler's or a source connector's ticker
    -- duty). It reads the config row (the ticker loop does, with its own rights).
    EXECUTE format($f$GRANT EXECUTE ON FUNCTION
        pgque.ticker(),
        pgque.ticker(text),
        pgque.ticker_round(interval),
        pgque.maint(),
        pgque.maint_retry_events(),
        pgque.maint_rotate_tables_step1(text),
        pgque.maint_rotate_tables_step2(),
        pgque.maint_idem(),
        pgque.maint_idem(text),
        pgque.maint_deliver_delayed(),
        pgque.version()
    TO %I$f$, v_ticker);
    EXECUTE format('GRANT EXECUTE ON PROCEDURE pgque.ticker_loop() TO %I', v_ticker);
    EXECUTE format('GRANT EXECUTE ON FUNCTION pgque.ticker_loop_pause(timestamptz) TO %I', v_ticker);
    -- The health roll-up, so a connector's ticker duty can see whether the database ticks itself.
    EXECUTE format('GRANT EXECUTE ON FUNCTION pgque.status() TO %I', v_ticker);
    EXECUTE format('GRANT SELECT ON pgque.config TO %I', v_ticker);

    -- Internal functions (README.md), file by file: reachable only through the API functions,
    -- which run as the owner.
    EXECUTE format($f$REVOKE ALL ON FUNCTION
    pgque.role_name(text),
    -- 20_queue.sql
    pgque.queue_row(text),
    pgque.txid_current(),
    pgque.seq_last_value(text),
    pgque.event_table_name(int4, int4),
    pgque.event_seq_name(int4),
    pgque.tick_seq_name(int4),
    pgque.queue_grant_tables(int4),
    -- 30_insert.sql
    pgque.event_active_table(int4),
    pgque.event_insert_raw(pgque.queue, text[], text[], text[], text[], text[], text[]),
    pgque.event_draw_ids(pgque.queue, int),
    pgque.event_insert_rows(pgque.queue, bigint[], text[], text[], text[], text[], text[], text[]),
    pgque.event_check_arrays(text[], text[], text[], text[], text[], text[]),
    -- 40_ticker.sql
    pgque.hook_due_events(pgque.queue),
    pgque.hook_has_due_events(pgque.queue),
    pgque.tick_due(pgque.queue, pgque.tick),
    pgque.tick_due_by_period(pgque.queue, pgque.tick, interval),
    pgque.tick_insert(int4),
    pgque.tick_lock(int4, boolean),
    -- 45_subscription.sql, 50_batch.sql
    pgque.hook_refuse_plain(pgque.subscription, text, text, text),
    pgque.hook_unregister(pgque.subscription, text, text),
    pgque.hook_slot_forget(pgque.subscription),
    pgque.hook_closed_cursor(text, bigint, bigint),
    pgque.hook_batch_end_cap(int4, text),
    pgque.hook_slot_scan_sql(pgque.queue, pgque.subscription, pg_snapshot, pg_snapshot, bigint, bigint, int, int, int, boolean),
    pgque.sub_lock(int4, text),
    pgque.sub_refuse_slot(text, text),
    pgque.batch_refuse_slot(bigint, text),
    pgque.sub_register(text, text, bigint),
    pgque.sub_unregister(text, text),
    pgque.consumer_forget(int4[]),
    pgque.batch_next_tick(pgque.tick, interval, int4, interval),
    pgque.batch_window_tick(pgque.tick, pgque.tick, bigint, bigint, interval),
    pgque.batch_end_tick(pgque.tick, interval, int4, interval, bigint, bigint),
    pgque.batch_open(text, text, interval, int4, interval, bigint),
    pgque.window_scan_sql(pgque.queue, int4, pg_snapshot, pg_snapshot, bigint, int, int, int, bigint, bigint[]),
    pgque.window_scan_rows(pgque.queue, int4, pg_snapshot, pg_snapshot, bigint, int, int, bigint, bigint[]),
    pgque.window_message_columns(bigint),
    pgque.window_scan_select(pgque.queue, pg_snapshot, pg_snapshot, text, text),
    pgque.batch_scan_sql(bigint, bigint, int, int, int, boolean),
    pgque.batch_event_rows(bigint, bigint, int, int, int),
    pgque.batch_messages(bigint, bigint, int, int, int),
    pgque.batch_first_page(bigint, int, int, int),
    pgque.batch_close(bigint),
    pgque.batch_consumer_name(bigint),
    -- 51_retry.sql
    pgque.hook_dead_letter_consumer(pgque.subscription),
    pgque.hook_retry_held_owners(int4),
    pgque.batch_event(bigint, bigint, int, int),
    pgque.batch_subscription(bigint),
    pgque.retry_event(pgque.subscription, bigint, bigint, timestamptz, int, int),
    pgque.dead_letter_event(pgque.subscription, bigint, bigint, text, int, int),
    pgque.retry_nack(bigint, bigint, interval, text, int, int),
    pgque.dlq_resend(int4, bigint[]),
    -- 52_coop.sql
    pgque.coop_has_members(pgque.subscription),
    pgque.coop_check_names(text, text, text),
    pgque.coop_nack_window(pgque.subscription, text),
    pgque.coop_unregister_member(text, text, integer),
    -- 55_partition.sql to 60_resize.sql
    pgque.slot_consumer_names(text, int),
    pgque.partition_check_names(text, text),
    pgque.partition_pinned_n(pgque.queue, text),
    pgque.slot_check_range(int, int, text, text),
    pgque.partition_pin(pgque.queue, text, int),
    pgque.partition_resizing(int4, text),
    pgque.partition_check_n(pgque.queue, text, int),
    pgque.partition_forget_next(pgque.queue, text),
    pgque.slot_check_lease(text, text, int, int, text, boolean),
    pgque.slot_guard(text, text, int, int, text),
    pgque.slot_batch_open(text, text, int, int, text, bigint, int, bigint, text),
    pgque.slot_worker_label(text),
    pgque.slot_lease_holder(pgque.partition_slot, text),
    pgque.slot_blocked(pgque.subscription),
    pgque.slot_window_rows(pgque.subscription, bigint, text),
    pgque.slot_block_open(pgque.subscription, bigint),
    pgque.slot_block_close(pgque.subscription, bigint),
    pgque.slot_block_wake(int4),
    pgque.slot_batch_close(pgque.subscription, bigint),
    pgque.slot_block_lock(text, text, text),
    pgque.slot_block_rehome(int4, text, int, int4[]),
    pgque.read_ahead_ticks(pgque.subscription, text, bigint, bigint),
    pgque.read_ahead_ticks_after(pgque.subscription, text, bigint, bigint, bigint),
    pgque.read_ahead_plan(text, text, int, int, text, bigint, bigint),
    pgque.read_ahead_plan_after(text, text, int, int, text, bigint, bigint, bigint),
    pgque.read_ahead_queries(text, text, int, int, text, bigint, bigint, bigint, int, int[]),
    pgque.resize_blockers(int4, text),
    pgque.resize_lock(pgque.queue, text),
    pgque.resize_lock_draining(pgque.queue, text),
    -- 65_idem.sql, 66_delayed.sql, 70_rotation.sql, 75_sink_offsets.sql, 82_scheduling.sql, 84_status.sql
    pgque.idem_prepare(text, interval),
    pgque.delayed_move_limit(),
    pgque.delayed_queue(text),
    pgque.delayed_check_times(timestamptz[]),
    pgque.delayed_hold(pgque.queue, timestamptz[], text[], text[], text[], text[], text[], text[]),
    pgque.delayed_move(pgque.queue, int),
    pgque.queue_rotation_blockers(int4),
    pgque.queue_rotation_holder(pgque.queue),
    pgque.queue_check_buckets(interval, interval),
    pgque.sink_check_call(text, text[], int4[], int[], bigint[], boolean),
    pgque.sink_check_owner(text, boolean),
    pgque.cron_jobs(),
    pgque.cron_version(),
    pgque.cron_stop_jobs(),
    pgque.scheduler_retired_jobs(),
    pgque.version_at_least(text, text),
    pgque.timetable_jobs(),
    pgque.timetable_schedule_sql(),
    pgque.timetable_check(text, text),
    pgque.scheduler_schema_doubt(text, text[]),
    pgque.timetable_stop_jobs()
    FROM %I$f$, v_admin);

    -- PgQ's bulk insert primitive is the owner's alone (producers use send_batch).
    EXECUTE format('REVOKE ALL ON FUNCTION pgque.insert_event_bulk(text, text, text[]) FROM %I', v_admin);

    -- Removing the engine is for the schema's owner alone.
    EXECUTE format('REVOKE ALL ON FUNCTION pgque.uninstall(), pgque.uninstall(boolean), pgque.uninstall_dependents(),
                    pgque.uninstall_unconsumed() FROM %I', v_admin);
END
$grants$;
