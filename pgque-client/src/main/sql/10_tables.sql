--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Tables, types and sequences shared by all queues. Per-queue event tables are created by
-- pgque.create_queue(). Names and key columns follow PgQ/PgQue so existing monitoring queries
-- keep working.

CREATE TABLE IF NOT EXISTS pgque.config (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    tick_period_ms int NOT NULL DEFAULT 100 CHECK (tick_period_ms BETWEEN 1 AND 1000 AND 1000 % tick_period_ms = 0),
    installed_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO pgque.config DEFAULT VALUES ON CONFLICT DO NOTHING;

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
-- Set by force_next_tick(), cleared by the next tick: a request, not a fake burst of events,
-- so lag and pending-event estimates stay true.
ALTER TABLE pgque.queue ADD COLUMN IF NOT EXISTS queue_tick_requested boolean NOT NULL DEFAULT false;

CREATE TABLE IF NOT EXISTS pgque.tick (
    tick_queue     int4 NOT NULL REFERENCES pgque.queue (queue_id),
    tick_id        bigint NOT NULL,
    tick_time      timestamptz NOT NULL DEFAULT now(),
    tick_snapshot  pg_snapshot NOT NULL DEFAULT pg_current_snapshot(),
    tick_event_seq bigint NOT NULL,
    PRIMARY KEY (tick_queue, tick_id)
);

CREATE SEQUENCE IF NOT EXISTS pgque.batch_id_seq;

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
ALTER TABLE pgque.retry_queue ALTER COLUMN ev_txid DROP NOT NULL;
ALTER TABLE pgque.retry_queue ALTER COLUMN ev_txid DROP DEFAULT;
CREATE INDEX IF NOT EXISTS retry_queue_retry_after_idx ON pgque.retry_queue (ev_retry_after);

CREATE TABLE IF NOT EXISTS pgque.dead_letter (
    dl_id          bigserial PRIMARY KEY,
    dl_queue_id    int4 NOT NULL REFERENCES pgque.queue (queue_id) ON DELETE CASCADE,
    dl_consumer_id int4 NOT NULL REFERENCES pgque.consumer (co_id) ON DELETE CASCADE,
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
CREATE INDEX IF NOT EXISTS dead_letter_queue_time_idx ON pgque.dead_letter (dl_queue_id, dl_time);

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
