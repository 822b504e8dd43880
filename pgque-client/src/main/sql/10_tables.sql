--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Tables, types and sequences shared by all queues. Per-queue event tables are created by
-- pgque.create_queue(). Names and key columns follow PgQ/PgQue so existing monitoring queries
-- keep working.
--
-- Layer: core, at the bottom (README.md). The core's tables only: a mode that needs state of its
-- own defines its tables in its own file (52_coop.sql keeps its state in sub_role below).

CREATE TABLE IF NOT EXISTS pgque.config (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    tick_period_ms int NOT NULL DEFAULT 100 CHECK (tick_period_ms BETWEEN 1 AND 1000 AND 1000 % tick_period_ms = 0),
    installed_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO pgque.config DEFAULT VALUES ON CONFLICT DO NOTHING;
-- How long one run of ticker_loop() (82_scheduling.sql) keeps ticking, in ms. start() sets it to
-- the period of the ticker job (1 s where pg_cron can schedule seconds, 1 min where it cannot);
-- stop() sets it back, so a running loop ends within a second instead of finishing its minute.
CALL pg_temp.pgque_add_column('pgque.config', 'ticker_loop_ms',
    'int NOT NULL DEFAULT 1000 CHECK (ticker_loop_ms BETWEEN 1000 AND 60000)');
-- Which scheduler start() or start_timetable() set up, and the ids of its jobs (NULL: none; the
-- engine is ticked manually or from outside, a connector's ticker duty say).
CALL pg_temp.pgque_add_column('pgque.config', 'scheduler', $$text CHECK (scheduler IN ('pg_cron', 'pg_timetable'))$$);
CALL pg_temp.pgque_add_column('pgque.config', 'scheduler_job_ids', 'bigint[]');
-- PgQue's names for two of those ids, which its scripts read: the ticker job's and the
-- maintenance job's (NULL while no scheduler runs them).
CALL pg_temp.pgque_add_column('pgque.config', 'ticker_job_id', 'bigint');
CALL pg_temp.pgque_add_column('pgque.config', 'maint_job_id', 'bigint');

CREATE TABLE IF NOT EXISTS pgque.consumer (
    co_id   serial PRIMARY KEY,
    co_name text NOT NULL UNIQUE
);

CREATE TABLE IF NOT EXISTS pgque.queue (
    queue_id                 serial PRIMARY KEY,
    queue_name               text NOT NULL UNIQUE,
    queue_ntables            int4 NOT NULL DEFAULT 3,
    queue_cur_table          int4 NOT NULL DEFAULT 0,
    queue_rotation_period    interval NOT NULL DEFAULT '2 hours',
    queue_switch_step1       bigint NOT NULL,
    queue_switch_step2       bigint,
    queue_switch_time        timestamptz NOT NULL DEFAULT now(),
    queue_external_ticker    boolean NOT NULL DEFAULT false,
    queue_disable_insert     boolean NOT NULL DEFAULT false,
    queue_ticker_paused      boolean NOT NULL DEFAULT false,
    queue_ticker_max_count   int4 NOT NULL DEFAULT 500,
    queue_ticker_max_lag     interval NOT NULL DEFAULT '3 seconds',
    queue_ticker_idle_period interval NOT NULL DEFAULT '1 minute',
    queue_data_pfx           text NOT NULL,
    queue_event_seq          text NOT NULL,
    queue_tick_seq           text NOT NULL,
    queue_extra_maint        text[],
    queue_max_retries        int4
);
-- Set by force_next_tick() of engines before 0.4.0, cleared by the next tick; still honoured.
CALL pg_temp.pgque_add_column('pgque.queue', 'queue_tick_requested', 'boolean NOT NULL DEFAULT false');
-- How many event ids force_next_tick() has drawn from the queue's sequence without an event
-- (PgQ's rule: a forced tick advances the sequence by ticker_max_count * 2 + 1000). The figures
-- of this engine's own (unticked_events, backlog_events) subtract it; PgQ's (ev_new,
-- pending_events) include it, as there.
CALL pg_temp.pgque_add_column('pgque.queue', 'queue_forced_ids', 'bigint NOT NULL DEFAULT 0');
-- The longest lease a worker may claim on a slot of the queue (claim_slot's ttl,
-- 57_partition_lease.sql): a slot whose holder died stays with it, and pins rotation, for that
-- long. set_queue_config(queue, 'lease_max_ttl', ...) changes it.
CALL pg_temp.pgque_add_column('pgque.queue', 'queue_lease_max_ttl',
    $$interval NOT NULL DEFAULT '1 hour' CHECK (queue_lease_max_ttl >= interval '1 second' AND isfinite(queue_lease_max_ttl))$$);
-- The longest idempotency window a producer may ask for on the queue (send_idem's ttl,
-- 65_idem.sql): the queue's key space is shared by all its writers, so a claim must not outlive
-- what the admin allows. set_queue_config(queue, 'idem_max_ttl', ...) changes it.
CALL pg_temp.pgque_add_column('pgque.queue', 'queue_idem_max_ttl',
    $$interval NOT NULL DEFAULT '30 days' CHECK (queue_idem_max_ttl > interval '0' AND isfinite(queue_idem_max_ttl))$$);

-- The names of a queue's tables and sequences follow from its id (pgque.event_table_name() and
-- friends, 20_queue.sql); the text columns are kept for PgQ's monitoring queries and must agree.
-- Code running with the owner's rights never reads a name from them.
UPDATE pgque.queue
   SET queue_data_pfx = 'pgque.event_' || queue_id::text,
       queue_event_seq = 'pgque.event_' || queue_id::text || '_id_seq',
       queue_tick_seq = 'pgque.event_' || queue_id::text || '_tick_seq'
 WHERE queue_data_pfx IS DISTINCT FROM 'pgque.event_' || queue_id::text
    OR queue_event_seq IS DISTINCT FROM 'pgque.event_' || queue_id::text || '_id_seq'
    OR queue_tick_seq IS DISTINCT FROM 'pgque.event_' || queue_id::text || '_tick_seq';
DO $names$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'pgque.queue'::regclass AND conname = 'queue_names_from_id') THEN
        ALTER TABLE pgque.queue ADD CONSTRAINT queue_names_from_id CHECK (
            queue_data_pfx = 'pgque.event_' || queue_id::text
            AND queue_event_seq = 'pgque.event_' || queue_id::text || '_id_seq'
            AND queue_tick_seq = 'pgque.event_' || queue_id::text || '_tick_seq');
    END IF;
END
$names$;

CREATE TABLE IF NOT EXISTS pgque.tick (
    tick_queue     int4 NOT NULL REFERENCES pgque.queue (queue_id),
    tick_id        bigint NOT NULL,
    tick_time      timestamptz NOT NULL DEFAULT now(),
    tick_snapshot  pg_snapshot NOT NULL DEFAULT pg_current_snapshot(),
    tick_event_seq bigint NOT NULL,
    PRIMARY KEY (tick_queue, tick_id)
);
-- queue_forced_ids when the tick was taken: the events between two ticks are the difference of
-- (tick_event_seq - tick_forced_ids).
CALL pg_temp.pgque_add_column('pgque.tick', 'tick_forced_ids', 'bigint NOT NULL DEFAULT 0');

-- The tickers' mutual exclusion (tick_lock, 40_ticker.sql): one row per queue (its id), locked by
-- whoever writes the queue's next tick, and row 0, locked by the ticker_round() in progress. Rows
-- of an engine table, because only the engine's own functions can lock them (a row lock needs
-- UPDATE on the table, which no role has), where an advisory lock can be taken by any login and
-- held for ever. create_queue() and drop_queue() add and remove a queue's row.
CREATE TABLE IF NOT EXISTS pgque.tick_guard (
    queue_id int4 PRIMARY KEY
);
INSERT INTO pgque.tick_guard (queue_id) SELECT 0 UNION ALL SELECT queue_id FROM pgque.queue ON CONFLICT DO NOTHING;

CREATE SEQUENCE IF NOT EXISTS pgque.batch_id_seq;

-- sub_role: 'normal' for a consumer of the core; a mode gives its rows another role
-- (52_coop.sql: a cooperative group's cursor 'coop_main' and its members 'coop_member'). The core's
-- plain calls handle only 'normal' rows themselves and ask the hooks in 45_subscription.sql and
-- 50_batch.sql about the rest.
CREATE TABLE IF NOT EXISTS pgque.subscription (
    sub_id        serial NOT NULL,
    sub_queue     int4 NOT NULL REFERENCES pgque.queue (queue_id),
    sub_consumer  int4 NOT NULL REFERENCES pgque.consumer (co_id),
    sub_role      text NOT NULL DEFAULT 'normal' CHECK (sub_role IN ('normal', 'coop_main', 'coop_member')),
    sub_last_tick bigint,
    sub_active    timestamptz NOT NULL DEFAULT now(),
    sub_batch     bigint UNIQUE,
    sub_next_tick bigint,
    PRIMARY KEY (sub_queue, sub_consumer)
);
-- True on a plain consumer that was a cooperative main until its last member left: a member
-- registering again turns it back into one, resuming at its cursor. Cleared when it opens a
-- plain batch.
CALL pg_temp.pgque_add_column('pgque.subscription', 'sub_was_coop_main', 'boolean NOT NULL DEFAULT false');

-- Parent of every event table; holds no rows. Column order matters: batch reads sort by the
-- first column.
CREATE TABLE IF NOT EXISTS pgque.event_template (
    ev_id     bigint NOT NULL,
    ev_time   timestamptz NOT NULL,
    ev_txid   xid8 NOT NULL DEFAULT pg_current_xact_id(),
    ev_owner  int4,
    ev_retry  int4,
    ev_type   text,
    ev_data   text,
    ev_extra1 text,
    ev_extra2 text,
    ev_extra3 text,
    ev_extra4 text
);

CREATE TABLE IF NOT EXISTS pgque.retry_queue (
    ev_retry_after timestamptz NOT NULL,
    ev_queue       int4 NOT NULL REFERENCES pgque.queue (queue_id),
    LIKE pgque.event_template,
    PRIMARY KEY (ev_owner, ev_id)
);
DO $retry_txid$
BEGIN
    IF (SELECT attnotnull OR atthasdef FROM pg_attribute WHERE attrelid = 'pgque.retry_queue'::regclass AND attname = 'ev_txid') THEN
        ALTER TABLE pgque.retry_queue ALTER COLUMN ev_txid DROP NOT NULL, ALTER COLUMN ev_txid DROP DEFAULT;
    END IF;
END
$retry_txid$;
CALL pg_temp.pgque_ddl_if(to_regclass('pgque.retry_queue_retry_after_idx') IS NULL,
    'CREATE INDEX retry_queue_retry_after_idx ON pgque.retry_queue (ev_retry_after)');

CREATE TABLE IF NOT EXISTS pgque.dead_letter (
    dl_id          bigserial PRIMARY KEY,
    dl_queue_id    int4 NOT NULL REFERENCES pgque.queue (queue_id) ON DELETE CASCADE,
    dl_consumer_id int4 NOT NULL REFERENCES pgque.consumer (co_id),
    dl_time        timestamptz NOT NULL DEFAULT now(),
    dl_reason      text,
    ev_id          bigint NOT NULL,
    ev_time        timestamptz NOT NULL,
    ev_txid        xid8,
    ev_retry       int4,
    ev_type        text,
    ev_data        text,
    ev_extra1      text,
    ev_extra2      text,
    ev_extra3      text,
    ev_extra4      text,
    UNIQUE (dl_queue_id, dl_consumer_id, ev_id)
);
CALL pg_temp.pgque_ddl_if(to_regclass('pgque.dead_letter_queue_time_idx') IS NULL,
    'CREATE INDEX dead_letter_queue_time_idx ON pgque.dead_letter (dl_queue_id, dl_time)');
-- Dead letters are evidence: a consumer row that still has some is never deleted (unsubscribing
-- keeps it), and the foreign key no longer cascades, so nothing deletes them by the way.
DO $dead_letter_fk$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'pgque.dead_letter'::regclass
                  AND conname = 'dead_letter_dl_consumer_id_fkey' AND confdeltype = 'c') THEN
        ALTER TABLE pgque.dead_letter DROP CONSTRAINT dead_letter_dl_consumer_id_fkey;
        ALTER TABLE pgque.dead_letter ADD CONSTRAINT dead_letter_dl_consumer_id_fkey
            FOREIGN KEY (dl_consumer_id) REFERENCES pgque.consumer (co_id);
    END IF;
END
$dead_letter_fk$;

DO $types$
BEGIN
    IF to_regtype('pgque.message') IS NULL THEN
        CREATE TYPE pgque.message AS (
            msg_id      bigint,
            batch_id    bigint,
            type        text,
            payload     text,
            retry_count int4,
            created_at  timestamptz,
            extra1      text,
            extra2      text,
            extra3      text,
            extra4      text
        );
    END IF;
END
$types$;
