--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- PgQue engine for pgque-kafka-connect: the install and upgrade script.
-- pgque-engine-version: 0.4.2
--
-- Assembled by the build from pgque-client/src/main/sql/*.sql in file-name order, one file per
-- concern. Run it with `psql -f pgque.sql` or through the Java client's installer. It runs in
-- one transaction: if any check fails, nothing at all is changed. Running it again is harmless:
-- every object is created only when missing or replaced by an identical definition.
--
-- Requirements: PostgreSQL 14 or newer; a role that owns the database (or may create schemas
-- in it) and has CREATEROLE. No superuser, no extension.
--
-- Layer: bootstrap. The files are layered, each calling only files before it; README.md beside
-- them says which layer each is, the hooks through which a lower layer lets a higher one decide,
-- and the naming rules.
BEGIN;

-- The version this script installs, for the guard below and for pgque.version().
SELECT set_config('pgque.install_version', '0.4.2', true);
SET LOCAL client_min_messages = warning;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Install guard: never touch a pgque schema that another installer created (an upstream PgQue
-- or PgQ install would be broken by ours), and never downgrade.
--
-- Layer: bootstrap (README.md). Owns pgque.engine_info and the role names; calls nothing.

CREATE OR REPLACE FUNCTION pg_temp.pgque_version_array(v text) RETURNS int[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT string_to_array(substring(v FROM '^[0-9]+(?:\.[0-9]+)*'), '.')::int[]
$$;

DO $guard$
DECLARE
    v_bundled   text := current_setting('pgque.install_version');
    v_installed text;
BEGIN
    IF to_regnamespace('pgque') IS NULL THEN
        RETURN;
    END IF;
    IF to_regclass('pgque.engine_info') IS NULL THEN
        RAISE EXCEPTION 'schema pgque exists but was not created by the pgque-kafka-connect installer; refusing to modify it'
            USING ERRCODE = 'PQ007',
                  HINT = 'Install into a database without a pgque schema, or remove the other installation first.';
    END IF;
    SELECT engine_version INTO v_installed FROM pgque.engine_info;
    IF v_installed IS NOT NULL
       AND pg_temp.pgque_version_array(v_installed) > pg_temp.pgque_version_array(v_bundled) THEN
        RAISE EXCEPTION 'installed pgque engine % is newer than this script (%); refusing to downgrade', v_installed, v_bundled
            USING ERRCODE = 'PQ007';
    END IF;
END
$guard$;

CREATE SCHEMA IF NOT EXISTS pgque;
REVOKE ALL ON SCHEMA pgque FROM PUBLIC;

-- Marks the schema as ours and records what is installed (one row).
CREATE TABLE IF NOT EXISTS pgque.engine_info (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    engine_version text NOT NULL,
    installed_at   timestamptz NOT NULL DEFAULT now(),
    upgraded_at    timestamptz NOT NULL DEFAULT now()
);
INSERT INTO pgque.engine_info (engine_version) VALUES (current_setting('pgque.install_version'))
ON CONFLICT (singleton) DO UPDATE
    SET engine_version = EXCLUDED.engine_version,
        upgraded_at = CASE WHEN pgque.engine_info.engine_version = EXCLUDED.engine_version
                           THEN pgque.engine_info.upgraded_at ELSE now() END
    WHERE pgque.engine_info.engine_version IS DISTINCT FROM EXCLUDED.engine_version;

-- The names of the engine's four roles, chosen at the first install and kept by every upgrade.
-- PostgreSQL roles are cluster-wide: by default every database of a server shares pgque_reader,
-- pgque_writer, pgque_admin and pgque_ticker, so a login granted pgque_reader for one database
-- reads the queues of every other database that has the engine. Installing with the setting
-- pgque.role_prefix (for example PGOPTIONS='-c pgque.role_prefix=app1_pgque' psql -f pgque.sql)
-- gives this database roles of its own: app1_pgque_reader, app1_pgque_writer, and so on.
ALTER TABLE pgque.engine_info ADD COLUMN IF NOT EXISTS role_prefix text;
DO $role_names$
DECLARE
    v_asked     text := nullif(btrim(current_setting('pgque.role_prefix', true)), '');
    v_recorded  text;
BEGIN
    SELECT role_prefix INTO v_recorded FROM pgque.engine_info;
    IF v_asked IS NOT NULL AND v_asked !~ '^[a-z_][a-z0-9_]{0,50}$' THEN
        RAISE EXCEPTION 'pgque.role_prefix must be a lower-case SQL name of at most 51 characters (letters, digits, _), got %', v_asked
            USING ERRCODE = '22023';
    END IF;
    IF v_recorded IS NULL THEN
        UPDATE pgque.engine_info SET role_prefix = coalesce(v_asked, 'pgque');
    ELSIF v_asked IS NOT NULL AND v_asked <> v_recorded THEN
        RAISE EXCEPTION 'this engine was installed with role prefix %; refusing to switch it to %', v_recorded, v_asked
            USING ERRCODE = 'PQ007',
                  HINT = 'Run the script without pgque.role_prefix (the recorded prefix is kept), or uninstall first.';
    END IF;
END
$role_names$;

-- The name of one of the engine's roles in this database: kind is reader, writer, admin or ticker.
CREATE OR REPLACE FUNCTION pgque.role_name(i_kind text)
RETURNS name
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT (role_prefix || '_' || i_kind)::name FROM pgque.engine_info
             WHERE i_kind IN ('reader', 'writer', 'admin', 'ticker'));
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Four NOLOGIN roles (names: pgque.role_name(), 01_guard.sql), created once per cluster. Reader
-- and writer are siblings (a producer cannot consume, a consumer cannot produce); the ticker
-- ticks and maintains and nothing else; admin is a member of all three.
--
-- Layer: bootstrap (README.md). Calls pgque.role_name() (01_guard.sql).
DO $roles$
DECLARE
    v_admin name := pgque.role_name('admin');
    r name;
BEGIN
    FOREACH r IN ARRAY ARRAY[pgque.role_name('reader'), pgque.role_name('writer'), pgque.role_name('ticker'), v_admin] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', r);
        END IF;
    END LOOP;
    -- Grant memberships only when missing: a non-superuser installer may lack ADMIN OPTION on
    -- roles another installation created, and a no-op grant must not fail the install.
    FOREACH r IN ARRAY ARRAY[pgque.role_name('reader'), pgque.role_name('writer'), pgque.role_name('ticker')] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
                        WHERE m.roleid = r::regrole AND m.member = v_admin::regrole) THEN
            EXECUTE format('GRANT %I TO %I', r, v_admin);
        END IF;
    END LOOP;
    -- An old layout made the writer a member of the reader; siblings only.
    IF EXISTS (SELECT 1 FROM pg_auth_members m
                WHERE m.roleid = pgque.role_name('reader')::regrole AND m.member = pgque.role_name('writer')::regrole) THEN
        EXECUTE format('REVOKE %I FROM %I', pgque.role_name('reader'), pgque.role_name('writer'));
    END IF;
END
$roles$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- What an upgrade removes, so that it leaves exactly what a fresh install creates: no function
-- an older engine had and this one has not, and no parameter name it used (UpgradeIT compares an
-- upgraded database with a fresh install, functions and grants).
--
-- Layer: bootstrap (README.md). Runs before any file below creates anything.
--
-- Every function of the schema that only its owner may execute goes first: the internal
-- helpers, the hooks, and the calls that are the owner's alone (90_grants.sql revokes them from
-- every role). The files below create again those this version has. So an internal function may
-- be renamed, removed or given other parameter names (which CREATE OR REPLACE cannot do) by
-- editing its file alone. pgque.role_name() stays: 01_guard.sql has just created it, and the
-- files below use it. An API function (one a role may execute) is never dropped here: callers
-- and grants depend on it. Retiring one takes a DROP FUNCTION IF EXISTS line at the end of this
-- file. A view must call API functions only (a view on an internal function would stop the drop).
DO $upgrade$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_proc p
              WHERE p.pronamespace = 'pgque'::regnamespace
                AND p.oid <> 'pgque.role_name(text)'::regprocedure
                AND NOT EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                                 WHERE a.grantee <> p.proowner AND a.privilege_type = 'EXECUTE') LOOP
        EXECUTE format('DROP ROUTINE %s', f);
    END LOOP;
END
$upgrade$;
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
-- How long one run of ticker_loop() (85_lifecycle.sql) keeps ticking, in ms. start() sets it to
-- the period of the ticker job (1 s where pg_cron can schedule seconds, 1 min where it cannot);
-- stop() sets it back, so a running loop ends within a second instead of finishing its minute.
ALTER TABLE pgque.config ADD COLUMN IF NOT EXISTS ticker_loop_ms int NOT NULL DEFAULT 1000
    CHECK (ticker_loop_ms BETWEEN 1000 AND 60000);
-- Which scheduler start() or start_timetable() set up, and the ids of its jobs (NULL: none; the
-- engine is ticked manually or from outside, a connector's ticker duty say).
ALTER TABLE pgque.config ADD COLUMN IF NOT EXISTS scheduler text CHECK (scheduler IN ('pg_cron', 'pg_timetable'));
ALTER TABLE pgque.config ADD COLUMN IF NOT EXISTS scheduler_job_ids bigint[];

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
ALTER TABLE pgque.queue ADD COLUMN IF NOT EXISTS queue_tick_requested boolean NOT NULL DEFAULT false;
-- How many event ids force_next_tick() has drawn from the queue's sequence without an event
-- (PgQ's rule: a forced tick advances the sequence by ticker_max_count * 2 + 1000). The figures
-- of this engine's own (unticked_events, backlog_events) subtract it; PgQ's (ev_new,
-- pending_events) include it, as there.
ALTER TABLE pgque.queue ADD COLUMN IF NOT EXISTS queue_forced_ids bigint NOT NULL DEFAULT 0;

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
ALTER TABLE pgque.tick ADD COLUMN IF NOT EXISTS tick_forced_ids bigint NOT NULL DEFAULT 0;

CREATE SEQUENCE IF NOT EXISTS pgque.batch_id_seq;

-- sub_role: 'normal' for a consumer of the core; a mode gives its rows another role
-- (52_coop.sql: a cooperative group's cursor 'coop_main' and its members 'coop_member'). The core's
-- plain calls handle only 'normal' rows themselves and ask the hooks in 50_batch.sql about the rest.
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
ALTER TABLE pgque.subscription ADD COLUMN IF NOT EXISTS sub_was_coop_main boolean NOT NULL DEFAULT false;

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
CREATE INDEX IF NOT EXISTS dead_letter_queue_time_idx ON pgque.dead_letter (dl_queue_id, dl_time);
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
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Queues: the lookups and the object names that every later file uses. Internal only.
--
-- Layer: core, at the bottom (README.md). Calls only pgque.role_name() (01_guard.sql). The queue
-- table is in 10_tables.sql; creating, dropping and configuring queues is the admin API in
-- 68_queue_admin.sql, above every layer whose state a queue carries.

-- Internal: the queue row, or a PQ001 error naming the queue.
CREATE OR REPLACE FUNCTION pgque.queue_row(i_queue text)
RETURNS pgque.queue
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue not found: %', i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001';
    END IF;
    RETURN q;
END
$$;

-- Internal: the current transaction id as a bigint (for the rotation bookkeeping columns).
CREATE OR REPLACE FUNCTION pgque.txid_current()
RETURNS bigint
LANGUAGE plpgsql VOLATILE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pg_current_xact_id()::text::bigint;
END
$$;

-- Internal: the event sequence's latest value (0 before the first event).
CREATE OR REPLACE FUNCTION pgque.seq_last_value(i_seq text)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN coalesce(pg_sequence_last_value(i_seq::regclass), 0);
END
$$;

-- Internal: the names of a queue's objects, built from its id alone. Code that runs with the
-- owner's rights names tables and sequences only through these (never from the text columns of
-- pgque.queue), so whoever could change a row cannot steer that code to another object.
-- i_table NULL: the parent event table; 0..ntables-1: one of its children.
CREATE OR REPLACE FUNCTION pgque.event_table_name(i_queue_id int4, i_table int4)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'pgque.' || pg_catalog.quote_ident('event_' || i_queue_id::text
                                              || coalesce('_' || i_table::text, ''))
$$;

CREATE OR REPLACE FUNCTION pgque.event_seq_name(i_queue_id int4)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'pgque.' || pg_catalog.quote_ident('event_' || i_queue_id::text || '_id_seq')
$$;

CREATE OR REPLACE FUNCTION pgque.tick_seq_name(i_queue_id int4)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT 'pgque.' || pg_catalog.quote_ident('event_' || i_queue_id::text || '_tick_seq')
$$;

-- Internal: readers and admins may scan a queue's event tables (read-ahead queries run as the
-- reader); nobody but the owner may write, truncate or put a trigger on them.
CREATE OR REPLACE FUNCTION pgque.queue_grant_tables(i_queue_id int4)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ntables int4;
BEGIN
    SELECT queue_ntables INTO v_ntables FROM pgque.queue WHERE queue_id = i_queue_id;
    FOR i IN -1 .. v_ntables - 1 LOOP
        EXECUTE format('GRANT SELECT ON %s TO %I, %I', pgque.event_table_name(i_queue_id, nullif(i, -1)),
                       pgque.role_name('reader'), pgque.role_name('admin'));
    END LOOP;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Producing: every path ends in pgque.event_insert_raw, which writes into the queue's active
-- event table. Writer role.
--
-- Layer: core (README.md). Calls 20_queue.sql.

-- Internal: the event table that new rows of the queue must go to.
--
-- Rotation's step 2 records a transaction id from which on every writer uses the new table;
-- readers rely on it to skip the old one. So the writer's own transaction id must be taken
-- before the table number is read, and the read must not come from a snapshot older than the
-- switch: under READ COMMITTED each statement reads afresh; under REPEATABLE READ or
-- SERIALIZABLE the row lock turns a stale read into a serialization failure (retry the
-- transaction) instead of a row written to a table readers no longer scan.
CREATE OR REPLACE FUNCTION pgque.event_active_table(i_queue_id int4)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_table text;
BEGIN
    PERFORM pg_current_xact_id();
    IF current_setting('transaction_isolation') = 'read committed' THEN
        SELECT pgque.event_table_name(queue_id, queue_cur_table) INTO v_table FROM pgque.queue WHERE queue_id = i_queue_id;
    ELSE
        SELECT pgque.event_table_name(queue_id, queue_cur_table) INTO v_table FROM pgque.queue WHERE queue_id = i_queue_id
           FOR SHARE;
    END IF;
    RETURN v_table;
END
$$;

-- Internal: the one place that writes event rows. Ids are drawn in a block and handed out in
-- ascending order of input position, so events sent together keep their order (ev_id order is
-- delivery order inside a batch). Returns the ids aligned with the input arrays.
CREATE OR REPLACE FUNCTION pgque.event_insert_raw(
    i_q pgque.queue, i_types text[], i_payloads text[],
    i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ids bigint[];
BEGIN
    IF coalesce(cardinality(i_payloads), 0) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    v_ids := pgque.event_draw_ids(i_q, cardinality(i_payloads));
    PERFORM pgque.event_insert_rows(i_q, v_ids, i_types, i_payloads, i_extra1, i_extra2, i_extra3, i_extra4);
    RETURN v_ids;
END
$$;

-- Internal: a block of n event ids of the queue, ascending. Drawing them before the rows exist
-- lets producers that must record an id elsewhere (the idempotency claims) write it once.
CREATE OR REPLACE FUNCTION pgque.event_draw_ids(i_q pgque.queue, i_count int)
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN ARRAY(SELECT nextval(pgque.event_seq_name(i_q.queue_id)::regclass) FROM generate_series(1, i_count) ORDER BY 1);
END
$$;

-- Internal: writes event rows with the given ids into the queue's active event table.
CREATE OR REPLACE FUNCTION pgque.event_insert_rows(
    i_q pgque.queue, i_ids bigint[], i_types text[], i_payloads text[],
    i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_table text;
BEGIN
    IF i_q.queue_disable_insert AND current_setting('session_replication_role') <> 'replica' THEN
        RAISE EXCEPTION 'Insert into queue disallowed' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has disable_insert = true.', i_q.queue_name);
    END IF;
    v_table := pgque.event_active_table(i_q.queue_id);
    -- One unnest walks all the arrays side by side (a NULL array gives NULLs); subscripting a
    -- text array by position would walk it from the start for every row.
    EXECUTE format(
        'INSERT INTO %s (ev_id, ev_time, ev_owner, ev_retry, ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
         SELECT u.id, now(), NULL, NULL, coalesce(u.type, ''default''), u.payload, u.e1, u.e2, u.e3, u.e4
           FROM unnest($1, $2, $3, $4, $5, $6, $7) AS u(id, type, payload, e1, e2, e3, e4)',
        v_table)
    USING i_ids, i_types, i_payloads, i_extra1, i_extra2, i_extra3, i_extra4;
END
$$;

-- Internal: argument checks shared by the array forms.
CREATE OR REPLACE FUNCTION pgque.event_check_arrays(
    i_payloads text[], i_types text[], i_extra1 text[], i_extra2 text[], i_extra3 text[], i_extra4 text[])
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_n int;
BEGIN
    IF i_payloads IS NULL THEN
        RAISE EXCEPTION 'payloads must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF array_ndims(i_payloads) > 1 THEN
        RAISE EXCEPTION 'payloads must be a one-dimensional array' USING ERRCODE = '22023';
    END IF;
    v_n := cardinality(i_payloads);
    IF (i_types IS NOT NULL AND cardinality(i_types) <> v_n)
       OR (i_extra1 IS NOT NULL AND cardinality(i_extra1) <> v_n)
       OR (i_extra2 IS NOT NULL AND cardinality(i_extra2) <> v_n)
       OR (i_extra3 IS NOT NULL AND cardinality(i_extra3) <> v_n)
       OR (i_extra4 IS NOT NULL AND cardinality(i_extra4) <> v_n) THEN
        RAISE EXCEPTION 'every non-null array must have as many elements as payloads (%)', v_n
            USING ERRCODE = '22023';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.insert_event(queue_name text, ev_type text, ev_data text,
    ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (pgque.event_insert_raw(pgque.queue_row(queue_name), ARRAY[ev_type], ARRAY[ev_data],
            ARRAY[ev_extra1], ARRAY[ev_extra2], ARRAY[ev_extra3], ARRAY[ev_extra4]))[1];
END
$$;

CREATE OR REPLACE FUNCTION pgque.insert_event(queue_name text, ev_type text, ev_data text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, ev_type, ev_data, NULL, NULL, NULL, NULL);
END
$$;

-- The modern send API. jsonb payloads are stored as their canonical text; text payloads
-- verbatim.
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, payload jsonb) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, 'default', payload::text, NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, payload text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, 'default', payload, NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, type_name text, payload jsonb) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, type_name, payload::text, NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(queue_name text, type_name text, payload text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(queue_name, type_name, payload, NULL, NULL, NULL, NULL);
END
$$;
-- Keyed send: the partition key goes to ev_extra1 (no default on the key, so these never
-- collide with the three-argument forms).
CREATE OR REPLACE FUNCTION pgque.send(i_queue text, i_type text, i_payload jsonb, i_partition_key text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(i_queue, i_type, i_payload::text, i_partition_key, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send(i_queue text, i_type text, i_payload text, i_partition_key text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.insert_event(i_queue, i_type, i_payload, i_partition_key, NULL, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_events(i_queue text, i_types text[], i_payloads text[],
    i_partition_keys text[] DEFAULT NULL, i_extra2 text[] DEFAULT NULL,
    i_extra3 text[] DEFAULT NULL, i_extra4 text[] DEFAULT NULL)
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    PERFORM pgque.event_check_arrays(i_payloads, i_types, i_partition_keys, i_extra2, i_extra3, i_extra4);
    q := pgque.queue_row(i_queue);
    RETURN pgque.event_insert_raw(q, i_types, i_payloads, i_partition_keys, i_extra2, i_extra3, i_extra4);
END
$$;

CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, type_name text, payloads text[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.event_check_arrays(payloads, NULL, NULL, NULL, NULL, NULL);
    IF cardinality(payloads) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    RETURN pgque.event_insert_raw(pgque.queue_row(queue_name),
        array_fill(coalesce(type_name, 'default'), ARRAY[cardinality(payloads)]), payloads,
        NULL, NULL, NULL, NULL);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, payloads text[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_batch(queue_name, 'default', payloads);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, type_name text, payloads jsonb[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_batch(queue_name, type_name, payloads::text[]);
END
$$;
CREATE OR REPLACE FUNCTION pgque.send_batch(queue_name text, payloads jsonb[]) RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.send_batch(queue_name, 'default', payloads::text[]);
END
$$;

-- PgQ's internal bulk primitive under send_batch: one event of type ev_type per element of
-- ev_data_list (a NULL element is a NULL payload), ids returned in input order; an empty array
-- for an empty input. For the owner only (revoked from every role): producers use send_batch.
CREATE OR REPLACE FUNCTION pgque.insert_event_bulk(queue_name text, ev_type text, ev_data_list text[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(insert_event_bulk.queue_name);
BEGIN
    IF coalesce(cardinality(ev_data_list), 0) = 0 THEN
        RETURN '{}'::bigint[];
    END IF;
    RETURN pgque.event_insert_raw(q, array_fill(insert_event_bulk.ev_type, ARRAY[cardinality(ev_data_list)]),
                                   ev_data_list, NULL, NULL, NULL, NULL);
END
$$;
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
    -- lock taken in another order by another path could deadlock with it.
    PERFORM pgque.tick_lock(i_queue_id);
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
-- duty, an operator's call) until the caller commits. Without it two tickers could both decide
-- to tick and commit their ticks with snapshots out of tick-id order, and a batch between them
-- would hand out events again. An advisory lock, not a row lock: a producer's long
-- REPEATABLE READ transaction holds a share lock on the queue row and must not stall ticking.
CREATE OR REPLACE FUNCTION pgque.tick_lock(i_queue_id int4)
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(1885435252, i_queue_id);  -- 1885435252 = 'pgqt' as an int4
END
$$;

CREATE OR REPLACE FUNCTION pgque.ticker(i_queue_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_last pgque.tick;
    v_prev_time timestamptz;
    v_lag interval;
    v_new bigint;
BEGIN
    SELECT queue_id INTO q.queue_id FROM pgque.queue WHERE queue_name = i_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no such queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', i_queue_name);
    END IF;
    PERFORM pgque.tick_lock(q.queue_id);
    -- Read after the lock: a ticker that waited sees the tick the other one made.
    SELECT * INTO q FROM pgque.queue WHERE queue_id = q.queue_id;
    IF q.queue_external_ticker THEN
        RAISE EXCEPTION 'This queue has external tick source.' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s gets its ticks from the four-argument ticker().', i_queue_name);
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'Ticker has been paused for this queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has ticker_paused = true.', i_queue_name);
    END IF;

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

    IF q.queue_tick_requested THEN
        RETURN pgque.tick_insert(q.queue_id);
    END IF;
    v_lag := now() - v_last.tick_time;
    v_new := pgque.seq_getval(pgque.event_seq_name(q.queue_id)) - v_last.tick_event_seq;

    IF v_new > 0 THEN
        IF v_new < q.queue_ticker_max_count AND v_lag < q.queue_ticker_max_lag THEN
            RETURN NULL;
        END IF;
    ELSE
        -- Idle: tick spacing doubles until it reaches the idle period. A queue whose last tick
        -- has no earlier one (a fresh queue) has no spacing to keep and is ticked at once.
        SELECT tick_time INTO v_prev_time FROM pgque.tick
         WHERE tick_queue = q.queue_id AND tick_id < v_last.tick_id
         ORDER BY tick_id DESC LIMIT 1;
        IF FOUND AND (v_lag < q.queue_ticker_max_lag / 2
                      OR (v_lag < 2 * (v_last.tick_time - v_prev_time) AND v_lag < q.queue_ticker_idle_period)) THEN
            RETURN NULL;
        END IF;
    END IF;
    RETURN pgque.tick_insert(q.queue_id);
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
    PERFORM pgque.tick_lock(q.queue_id);
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
    PERFORM pgque.tick_lock(q.queue_id);
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

-- One round of a ticker that runs every i_period: ticks what pgque.ticker() ticks, and also
-- every queue whose events have waited i_period since its last tick, whatever the queue's
-- ticker_max_count and ticker_max_lag (events counted by the last tick whose transaction
-- committed only after it included); so run every i_period it bounds how long events wait
-- for a tick. Rounds run one at a time in the whole database: a round that finds another one
-- running returns NULL at once (a transaction-scoped advisory lock), so any number of callers
-- can share the duty and whoever is alive carries it. Otherwise returns how many queues ticked.
CREATE OR REPLACE FUNCTION pgque.ticker_round(i_period interval)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
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
                v_due := pgque.seq_last_value(pgque.event_seq_name(q.queue_id)) > v_last.tick_event_seq;
                IF NOT v_due THEN
                    -- The last tick may have counted events whose transaction was still running
                    -- when it was taken: they are in no batch yet, and the count alone would
                    -- not tick again for them. Tick once they are visible.
                    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s e WHERE e.ev_txid >= $1
                                       AND NOT pg_visible_in_snapshot(e.ev_txid, $2)
                                       AND pg_visible_in_snapshot(e.ev_txid, pg_current_snapshot()))',
                                   pgque.event_table_name(q.queue_id, NULL))
                       INTO v_due
                      USING pg_snapshot_xmin(v_last.tick_snapshot), v_last.tick_snapshot;
                END IF;
            END IF;
            IF v_due THEN
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
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Consuming: subscriptions, batches, and which events a batch holds. Reader role.
--
-- Layer: core (README.md). Calls 20_queue.sql. The modes above (52_coop.sql,
-- 55_partition.sql to 60_resize.sql) build on these functions; where a plain call meets a row
-- of a mode, or a batch a mode gates, the core asks one of the hooks below, never the mode.

-- Hooks: the core's own answer is the body here; the one layer named with each replaces the
-- body (CREATE OR REPLACE, same signature) with its own. The core asks them only about rows
-- whose sub_role is not 'normal', or (the cap) about slot subscriptions, so a plain consumer
-- pays no call for them.

-- Hook, filled by 52_coop.sql: a plain call (i_call: 'next_batch' opening a batch, 'reposition'
-- moving the cursor) on a subscription of another role. Raises to refuse the call, returns to
-- let it go on. The core has no such rows, and refuses.
CREATE OR REPLACE FUNCTION pgque.hook_refuse_plain(i_sub pgque.subscription, i_queue text, i_consumer text,
    i_call text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RAISE EXCEPTION 'consumer % on queue % is not a plain consumer (role %)', i_consumer, i_queue, i_sub.sub_role
        USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
END
$$;

-- Hook, filled by 52_coop.sql: unregister_consumer of a subscription of another role, asked
-- before its row is locked (a mode may lock other rows first) and again once it is. NULL lets
-- the core remove the row as a plain one; a number is the call's result, the mode having done
-- the work. The core has no such rows.
CREATE OR REPLACE FUNCTION pgque.hook_unregister(i_sub pgque.subscription, i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN NULL;
END
$$;

-- Hook, filled by 52_coop.sql: the cursor a subscription of role i_role keeps when its batch
-- i_batch_id, which ends at tick i_next_tick, is finished. Raises to refuse the finish. The core
-- moves the cursor to the batch's end.
CREATE OR REPLACE FUNCTION pgque.hook_closed_cursor(i_role text, i_next_tick bigint, i_batch_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN i_next_tick;
END
$$;

-- Hook, filled by 55_partition.sql: the last tick a batch of slot subscription i_consumer (a
-- name with #) may end at, NULL for no limit. STABLE: callers read it in the same expression
-- that chooses the batch's end, so both see one snapshot. The core sets no limit.
CREATE OR REPLACE FUNCTION pgque.hook_batch_end_cap(i_queue_id int4, i_consumer text)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN NULL;
END
$$;

-- Internal: the subscription of a consumer, locked for the rest of the transaction (this row
-- lock is the receive lock), or NULL fields when the consumer is not subscribed.
CREATE OR REPLACE FUNCTION pgque.sub_lock(i_queue_id int4, i_consumer text)
RETURNS pgque.subscription
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    SELECT sub.* INTO s FROM pgque.subscription sub JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
     WHERE sub.sub_queue = i_queue_id AND c.co_name = i_consumer
       FOR UPDATE OF sub;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN s;
END
$$;

-- The hash slot of a partition key among n slots: sign-normalised, NULL key in slot 0.
-- hashtextextended (not hashtext) because its values are stable across PostgreSQL majors.
-- The core's, because a window can be read one hash class at a time (window_scan_rows below:
-- a partition slot's share of it); producers may call it too. No SET clause and fully qualified
-- names, so the planner can inline it into batch reads (the scans call it from dynamic SQL).
CREATE OR REPLACE FUNCTION pgque.slot_of(i_key text, i_n int)
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN i_key IS NULL THEN 0
                ELSE ((pg_catalog.hashtextextended(i_key, 0) % i_n + i_n) % i_n)::int END
$$;

-- Internal: refuses a partition slot's subscription name ("<consumer>#<k>/<N>") in a plain
-- call. A slot is read, acked and retried only under its lease (the *_partitioned functions);
-- a plain call would go around it: open the slot's batch with no lease, read every hash class
-- of its window, or ack events the lease holder never saw.
CREATE OR REPLACE FUNCTION pgque.sub_refuse_slot(i_consumer text, i_use text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('#' IN coalesce(i_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer % is a partition slot consumer; use %', i_consumer, i_use
            USING ERRCODE = 'PQ009', HINT = '# is reserved for the slots of partitioned consumers.';
    END IF;
END
$$;

-- Internal: refuses a plain call on a partition slot's batch (see sub_refuse_slot).
CREATE OR REPLACE FUNCTION pgque.batch_refuse_slot(i_batch_id bigint, i_use text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text := pgque.batch_consumer_name(i_batch_id);
BEGIN
    IF position('#' IN coalesce(v_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot consumer %; use %', i_batch_id, v_consumer, i_use
            USING ERRCODE = 'PQ009';
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.register_consumer_at(x_queue_name text, x_consumer_name text, x_tick_pos bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sub_refuse_slot(x_consumer_name, 'pgque.subscribe_partitioned()');
    RETURN pgque.sub_register(x_queue_name, x_consumer_name, x_tick_pos);
END
$$;

-- Internal: register_consumer_at for any name, slots included (their own set-up calls it).
CREATE OR REPLACE FUNCTION pgque.sub_register(i_queue text, i_consumer text, i_tick_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s pgque.subscription;
    v_co int4;
    v_tick bigint;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'Event queue not created yet' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', i_queue);
    END IF;
    IF i_consumer IS NULL OR i_consumer = '' THEN
        RAISE EXCEPTION 'consumer name must not be null or empty' USING ERRCODE = '22023';
    END IF;
    IF i_tick_id IS NULL THEN
        SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
        IF v_tick IS NULL THEN
            RAISE EXCEPTION 'No ticks for this queue.  Please run ticker on database.' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
                DETAIL = format('queue: %s', i_queue);
        END IF;
    ELSE
        SELECT tick_id INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = i_tick_id;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'cannot reposition, tick not found: %', i_tick_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
                DETAIL = format('Queue %s has no tick %s (any more).', i_queue, i_tick_id);
        END IF;
    END IF;
    INSERT INTO pgque.consumer (co_name) VALUES (i_consumer) ON CONFLICT (co_name) DO NOTHING;
    SELECT co_id INTO v_co FROM pgque.consumer WHERE co_name = i_consumer;
    INSERT INTO pgque.subscription (sub_queue, sub_consumer, sub_last_tick)
    VALUES (q.queue_id, v_co, v_tick)
    ON CONFLICT (sub_queue, sub_consumer) DO NOTHING;
    IF FOUND THEN
        RETURN 1;
    END IF;
    IF i_tick_id IS NOT NULL THEN
        SELECT * INTO s FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = v_co;
        IF s.sub_role <> 'normal' THEN
            PERFORM pgque.hook_refuse_plain(s, i_queue, i_consumer, 'reposition');
        END IF;
        -- Reposition an existing subscription; its open batch, if any, is abandoned.
        UPDATE pgque.subscription
           SET sub_last_tick = v_tick, sub_batch = NULL, sub_next_tick = NULL, sub_active = now()
         WHERE sub_queue = q.queue_id AND sub_consumer = v_co;
    END IF;
    RETURN 0;
END
$$;

CREATE OR REPLACE FUNCTION pgque.register_consumer(x_queue_name text, x_consumer_name text)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.register_consumer_at(x_queue_name, x_consumer_name, NULL)
$$;

CREATE OR REPLACE FUNCTION pgque.unregister_consumer(x_queue_name text, x_consumer_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sub_refuse_slot(x_consumer_name, 'pgque.unsubscribe_partitioned() or pgque.unsubscribe_slot()');
    RETURN pgque.sub_unregister(x_queue_name, x_consumer_name);
END
$$;

-- Internal: the consumer row goes when nothing refers to it any more: no subscription, and no
-- dead letter (dead letters are evidence; they keep their consumer row, and a consumer that
-- subscribes again under the name finds them).
CREATE OR REPLACE FUNCTION pgque.consumer_forget(i_co_id int4)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM pgque.consumer c
     WHERE c.co_id = i_co_id
       AND NOT EXISTS (SELECT 1 FROM pgque.subscription o WHERE o.sub_consumer = c.co_id)
       AND NOT EXISTS (SELECT 1 FROM pgque.dead_letter d WHERE d.dl_consumer_id = c.co_id);
END
$$;

-- Internal: unregister_consumer for any name, slots included.
CREATE OR REPLACE FUNCTION pgque.sub_unregister(i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.queue_row(i_queue);
    s pgque.subscription;
    v_done integer;
BEGIN
    -- A row of a mode goes to the mode's hook, before its lock is taken here (a mode may lock
    -- other rows first) and again once it is held (the row may have become the mode's meanwhile).
    SELECT sub.* INTO s FROM pgque.subscription sub JOIN pgque.consumer c ON c.co_id = sub.sub_consumer
     WHERE sub.sub_queue = q.queue_id AND c.co_name = i_consumer;
    IF s.sub_role <> 'normal' THEN
        v_done := pgque.hook_unregister(s, i_queue, i_consumer);
        IF v_done IS NOT NULL THEN
            RETURN v_done;
        END IF;
    END IF;
    s := pgque.sub_lock(q.queue_id, i_consumer);
    IF s.sub_id IS NULL THEN
        RETURN 0;
    END IF;
    IF s.sub_role <> 'normal' THEN
        v_done := pgque.hook_unregister(s, i_queue, i_consumer);
        IF v_done IS NOT NULL THEN
            RETURN v_done;
        END IF;
    END IF;
    DELETE FROM pgque.retry_queue WHERE ev_queue = q.queue_id AND ev_owner = s.sub_id;
    DELETE FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = s.sub_consumer;
    PERFORM pgque.consumer_forget(s.sub_consumer);
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe(queue text, consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('#' IN coalesce(consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer name must not contain the reserved character #: %', consumer
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = '# separates the slots of a partitioned consumer; use pgque.subscribe_partitioned().';
    END IF;
    RETURN pgque.register_consumer(queue, consumer);
END
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe(queue text, consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF position('#' IN coalesce(consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer % is a partition slot; use pgque.unsubscribe_partitioned() or pgque.unsubscribe_slot()', consumer
            USING ERRCODE = 'PQ009';
    END IF;
    RETURN pgque.unregister_consumer(queue, consumer);
END
$$;

-- Internal: the tick that ends the next batch after cursor tick i_last (NULL fields when there
-- is none yet): the first later tick, or with i_min_count / i_min_interval the first one far
-- enough from the cursor, never younger than i_min_lag. The modes' batches end here too.
CREATE OR REPLACE FUNCTION pgque.batch_next_tick(i_last pgque.tick, i_min_lag interval, i_min_count int4,
    i_min_interval interval)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_next pgque.tick;
BEGIN
    SELECT t.* INTO v_next FROM pgque.tick t
     WHERE t.tick_queue = i_last.tick_queue AND t.tick_id > i_last.tick_id
       AND (i_min_lag IS NULL OR t.tick_time <= now() - i_min_lag)
       AND ((i_min_count IS NULL AND i_min_interval IS NULL)
            OR (i_min_count IS NOT NULL AND t.tick_event_seq - i_last.tick_event_seq >= i_min_count)
            OR (i_min_interval IS NOT NULL AND t.tick_time - i_last.tick_time >= i_min_interval))
     ORDER BY t.tick_id
     LIMIT 1;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN v_next;
END
$$;

-- Internal: the last tick after i_first (itself qualifying as the end of the next batch after
-- i_last) that ends a window of at most i_window_events events of the queue, never past i_cap
-- nor younger than i_min_lag; i_first when even the next tick ends a larger window. A reader
-- that fell several ticks behind takes them as one batch: it catches up in one read-send-ack
-- cycle per window rather than one per tick.
CREATE OR REPLACE FUNCTION pgque.batch_window_tick(i_last pgque.tick, i_first pgque.tick, i_window_events bigint,
    i_cap bigint, i_min_lag interval)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN coalesce(
        (SELECT t FROM pgque.tick t
          WHERE t.tick_queue = i_first.tick_queue AND t.tick_id > i_first.tick_id
            AND (i_cap IS NULL OR t.tick_id <= i_cap)
            AND (i_min_lag IS NULL OR t.tick_time <= now() - i_min_lag)
            -- Events, not ids: a forced tick's ids (tick_forced_ids) hold no event.
            AND (t.tick_event_seq - t.tick_forced_ids) - (i_last.tick_event_seq - i_last.tick_forced_ids) <= i_window_events
          ORDER BY t.tick_id DESC
          LIMIT 1),
        i_first);
END
$$;

-- Internal: the tick that ends the next batch after cursor tick i_last (batch_next_tick), NULL
-- when there is none yet or it lies past i_cap (a resize's seal: then none before it qualifies
-- either); with i_window_events as many ticks as that window holds (batch_window_tick). Opening a
-- batch and reading one ahead choose its end here, so a batch read ahead ends where it will.
CREATE OR REPLACE FUNCTION pgque.batch_end_tick(i_last pgque.tick, i_min_lag interval, i_min_count int4,
    i_min_interval interval, i_cap bigint, i_window_events bigint)
RETURNS pgque.tick
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_next pgque.tick := pgque.batch_next_tick(i_last, i_min_lag, i_min_count, i_min_interval);
BEGIN
    IF v_next.tick_id IS NULL OR v_next.tick_id > i_cap THEN
        RETURN NULL;
    END IF;
    IF i_window_events IS NOT NULL THEN
        RETURN pgque.batch_window_tick(i_last, v_next, i_window_events, i_cap, i_min_lag);
    END IF;
    RETURN v_next;
END
$$;

-- Internal: next_batch_custom, and with i_window_events a batch over as many ticks as the
-- window holds (batch_window_tick) when the consumer is behind by more than one.
CREATE OR REPLACE FUNCTION pgque.batch_open(i_queue text, i_consumer text,
    i_min_lag interval, i_min_count int4, i_min_interval interval, i_window_events bigint,
    OUT batch_id bigint, OUT cur_tick_id bigint, OUT prev_tick_id bigint,
    OUT cur_tick_time timestamptz, OUT prev_tick_time timestamptz,
    OUT cur_tick_event_seq bigint, OUT prev_tick_event_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    s pgque.subscription;
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    q := pgque.queue_row(i_queue);
    s := pgque.sub_lock(q.queue_id, i_consumer);
    IF s.sub_id IS NULL THEN
        RAISE EXCEPTION 'Not subscriber to queue: %/%', i_queue, i_consumer USING ERRCODE = 'PQ002';
    END IF;
    IF s.sub_role <> 'normal' THEN
        PERFORM pgque.hook_refuse_plain(s, i_queue, i_consumer, 'next_batch');
    END IF;
    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = s.sub_last_tick;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'PgQ corruption: Consumer % on queue % does not see tick %', i_consumer, i_queue, s.sub_last_tick
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000', DETAIL = 'The tick at the consumer''s position no longer exists.';
    END IF;
    prev_tick_id := v_last.tick_id;
    prev_tick_time := v_last.tick_time;
    prev_tick_event_seq := v_last.tick_event_seq;

    IF s.sub_batch IS NOT NULL THEN
        SELECT * INTO v_next FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = s.sub_next_tick;
        batch_id := s.sub_batch;
    ELSE
        -- A slot's batch may be capped (hook_batch_end_cap: a resize's seal). The cap and the
        -- batch end are read in one expression, so from one snapshot (the functions are
        -- STABLE): read apart, a begin_resize and one more tick committing in between would
        -- leave this slot without the cap and with a tick past the seal to end its batch at.
        v_next := pgque.batch_end_tick(v_last, i_min_lag, i_min_count, i_min_interval,
                                       CASE WHEN position('#' IN i_consumer) > 0
                                            THEN pgque.hook_batch_end_cap(q.queue_id, i_consumer) END,
                                       i_window_events);
        IF v_next.tick_id IS NULL THEN
            RETURN;
        END IF;
        batch_id := nextval('pgque.batch_id_seq');
        UPDATE pgque.subscription
           SET sub_batch = batch_id, sub_next_tick = v_next.tick_id, sub_active = now(), sub_was_coop_main = false
         WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    END IF;
    cur_tick_id := v_next.tick_id;
    cur_tick_time := v_next.tick_time;
    cur_tick_event_seq := v_next.tick_event_seq;
END
$$;

-- Opens the consumer's next batch, or re-issues the open one. The subscription row lock taken
-- here (the receive lock) makes concurrent callers of one consumer wait and then get the same
-- batch, never two different ones.
CREATE OR REPLACE FUNCTION pgque.next_batch_custom(i_queue_name text, i_consumer_name text,
    i_min_lag interval, i_min_count int4, i_min_interval interval,
    OUT batch_id bigint, OUT cur_tick_id bigint, OUT prev_tick_id bigint,
    OUT cur_tick_time timestamptz, OUT prev_tick_time timestamptz,
    OUT cur_tick_event_seq bigint, OUT prev_tick_event_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sub_refuse_slot(i_consumer_name, 'pgque.receive_partitioned()');
    SELECT * INTO batch_id, cur_tick_id, prev_tick_id, cur_tick_time, prev_tick_time, cur_tick_event_seq,
                  prev_tick_event_seq
      FROM pgque.batch_open(i_queue_name, i_consumer_name, i_min_lag, i_min_count, i_min_interval, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.next_batch_info(i_queue_name text, i_consumer_name text,
    OUT batch_id bigint, OUT cur_tick_id bigint, OUT prev_tick_id bigint,
    OUT cur_tick_time timestamptz, OUT prev_tick_time timestamptz,
    OUT cur_tick_event_seq bigint, OUT prev_tick_event_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    SELECT * INTO batch_id, cur_tick_id, prev_tick_id, cur_tick_time, prev_tick_time, cur_tick_event_seq,
                  prev_tick_event_seq
      FROM pgque.next_batch_custom(i_queue_name, i_consumer_name, NULL, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.next_batch(i_queue_name text, i_consumer_name text)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT b.batch_id FROM pgque.next_batch_custom(i_queue_name, i_consumer_name, NULL, NULL, NULL) b);
END
$$;

-- Internal: the query over the events of a window of the queue -- between the ticks with
-- snapshots i_snap1 and i_snap2, for subscription i_sub_id -- in ev_id order, optionally after a
-- given ev_id, at most i_limit of them, and optionally only those of one hash slot (i_slot of
-- i_n); as text, the window's bounds written in as literals, for the caller to run with RETURN
-- QUERY EXECUTE. Its rows are the event rows (batch_event_rows' columns), or with
-- i_message_batch the messages of that batch, followed by the values i_also as bigint columns. Callers run it themselves rather than through a
-- set-returning function because each such layer copies every row of the page once more.
--
-- An event belongs to the window (earlier snapshot S1, later snapshot S2) when its transaction
-- is visible in S2 but not in S1 -- also when that transaction started long before S1 and
-- committed late. Candidates are found through the ev_txid index: every txid from xmax(S1) up to
-- xmax(S2), plus the transactions still in progress at S1. Which events those are is fixed once
-- the later tick exists, whoever reads them and whenever.
CREATE OR REPLACE FUNCTION pgque.window_scan_sql(i_q pgque.queue, i_sub_id int4, i_snap1 pg_snapshot,
    i_snap2 pg_snapshot, i_after_ev_id bigint, i_limit int, i_slot int, i_n int, i_message_batch bigint,
    i_also bigint[] DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.window_scan_rows(i_q, i_sub_id, i_snap1, i_snap2, i_after_ev_id, i_slot, i_n, i_message_batch,
                                  i_also)
           || ' ORDER BY 1' || CASE WHEN i_limit IS NULL THEN '' ELSE ' LIMIT ' || i_limit END;
END
$$;

-- Internal: window_scan_sql's query without its order and limit: the window's rows in the order
-- the scan meets them.
CREATE OR REPLACE FUNCTION pgque.window_scan_rows(i_q pgque.queue, i_sub_id int4, i_snap1 pg_snapshot,
    i_snap2 pg_snapshot, i_after_ev_id bigint, i_slot int, i_n int, i_message_batch bigint, i_also bigint[])
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_columns text;
    v_filter text;
BEGIN
    IF i_message_batch IS NULL THEN
        v_columns := 'e.ev_id, e.ev_time, e.ev_txid, e.ev_retry, e.ev_type, e.ev_data, '
                     'e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4';
    ELSE
        v_columns := pgque.window_message_columns(i_message_batch);
    END IF;
    -- Constant columns after those (e.g. the ticks of a batch read ahead).
    v_columns := v_columns || coalesce((SELECT string_agg(format(', %s::bigint', a), '') FROM unnest(i_also) a), '');
    v_filter := format('(e.ev_owner IS NULL OR e.ev_owner = %s)', i_sub_id);
    IF i_after_ev_id IS NOT NULL THEN
        v_filter := v_filter || format(' AND e.ev_id > %s', i_after_ev_id);
    END IF;
    -- One slot holds every event: no key to hash.
    IF i_n IS NOT NULL AND i_n > 1 THEN
        v_filter := v_filter || format(' AND pgque.slot_of(e.ev_extra1, %s) = %s', i_n, i_slot);
    END IF;
    RETURN pgque.window_scan_select(i_q, i_snap1, i_snap2, v_columns, v_filter);
END
$$;

-- Internal: the columns of pgque.message over an event row e, as messages of batch i_batch_id
-- (read_ahead_query hands queries with them to readers).
CREATE OR REPLACE FUNCTION pgque.window_message_columns(i_batch_id bigint)
RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN format('e.ev_id AS msg_id, %s::bigint AS batch_id, e.ev_type AS type, e.ev_data AS payload, '
                  'e.ev_retry AS retry_count, e.ev_time AS created_at, e.ev_extra1 AS extra1, '
                  'e.ev_extra2 AS extra2, e.ev_extra3 AS extra3, e.ev_extra4 AS extra4', i_batch_id);
END
$$;

-- Internal: SELECT i_columns over the event rows e of the window between the ticks with
-- snapshots i_snap1 and i_snap2 that also satisfy i_filter, from every event table that can hold
-- them (see window_scan_sql), in the order the scan meets them.
CREATE OR REPLACE FUNCTION pgque.window_scan_select(i_q pgque.queue, i_snap1 pg_snapshot, i_snap2 pg_snapshot,
    i_columns text, i_filter text)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_tx_min bigint;
    v_tx_max bigint;
    v_tables text[];
    v_filter text;
BEGIN
    -- Which tables can hold the window: before the last switch only the previous table, once
    -- the switch is settled only the current one, in between both.
    v_tx_min := pg_snapshot_xmin(i_snap1)::text::bigint;
    v_tx_max := pg_snapshot_xmax(i_snap2)::text::bigint;
    IF v_tx_max < i_q.queue_switch_step1 THEN
        v_tables := ARRAY[pgque.event_table_name(i_q.queue_id,
                              (i_q.queue_cur_table + i_q.queue_ntables - 1) % i_q.queue_ntables)];
    ELSIF i_q.queue_switch_step2 IS NOT NULL AND v_tx_min > i_q.queue_switch_step2 THEN
        v_tables := ARRAY[pgque.event_table_name(i_q.queue_id, i_q.queue_cur_table)];
    ELSE
        v_tables := ARRAY[pgque.event_table_name(i_q.queue_id, i_q.queue_cur_table),
                          pgque.event_table_name(i_q.queue_id,
                              (i_q.queue_cur_table + i_q.queue_ntables - 1) % i_q.queue_ntables)];
    END IF;

    v_filter := format(
        '((e.ev_txid >= %L::xid8 AND e.ev_txid < %L::xid8) OR e.ev_txid = ANY (%L::xid8[]))
            AND pg_visible_in_snapshot(e.ev_txid, %L::pg_snapshot)
            AND NOT pg_visible_in_snapshot(e.ev_txid, %L::pg_snapshot)
            AND %s',
        pg_snapshot_xmax(i_snap1), pg_snapshot_xmax(i_snap2), ARRAY(SELECT pg_snapshot_xip(i_snap1)),
        i_snap2, i_snap1, i_filter);

    RETURN (SELECT string_agg(format('SELECT %s FROM %s e WHERE %s', i_columns, t, v_filter), ' UNION ALL ')
              FROM unnest(v_tables) AS t);
END
$$;

-- Internal: window_scan_sql over the window of open batch i_batch_id.
CREATE OR REPLACE FUNCTION pgque.batch_scan_sql(i_batch_id bigint, i_after_ev_id bigint, i_limit int,
    i_slot int, i_n int, i_messages boolean)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v record;
BEGIN
    SELECT q AS queue, sub.sub_id, t1.tick_snapshot AS snap1, t2.tick_snapshot AS snap2
      INTO v
      FROM pgque.subscription sub
      JOIN pgque.queue q ON q.queue_id = sub.sub_queue
      JOIN pgque.tick t1 ON t1.tick_queue = sub.sub_queue AND t1.tick_id = sub.sub_last_tick
      JOIN pgque.tick t2 ON t2.tick_queue = sub.sub_queue AND t2.tick_id = sub.sub_next_tick
     WHERE sub.sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN pgque.window_scan_sql(v.queue, v.sub_id, v.snap1, v.snap2, i_after_ev_id, i_limit, i_slot, i_n,
                                 CASE WHEN i_messages THEN i_batch_id END);
END
$$;

-- Internal: the events of an open batch, in ev_id order, optionally after a given ev_id, at
-- most i_limit of them, and optionally only those of one hash slot (i_slot of i_n); see
-- window_scan_sql for which events a batch holds.
CREATE OR REPLACE FUNCTION pgque.batch_event_rows(i_batch_id bigint, i_after_ev_id bigint, i_limit int,
    i_slot int, i_n int)
RETURNS TABLE (ev_id bigint, ev_time timestamptz, ev_txid xid8, ev_retry int4, ev_type text, ev_data text,
               ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY EXECUTE pgque.batch_scan_sql(i_batch_id, i_after_ev_id, i_limit, i_slot, i_n, false);
END
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_events(x_batch_id bigint)
RETURNS TABLE (ev_id bigint, ev_time timestamptz, ev_txid bigint, ev_retry int4, ev_type text, ev_data text,
               ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.batch_refuse_slot(x_batch_id, 'pgque.read_batch_partitioned()');
    RETURN QUERY
    SELECT r.ev_id, r.ev_time, r.ev_txid::text::bigint, r.ev_retry, r.ev_type, r.ev_data,
           r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4
      FROM pgque.batch_event_rows(x_batch_id, NULL, NULL, NULL, NULL) r;
END
$$;

-- Internal: a page of a batch as messages.
CREATE OR REPLACE FUNCTION pgque.batch_messages(i_batch_id bigint, i_after_ev_id bigint, i_limit int, i_slot int, i_n int)
RETURNS SETOF pgque.message
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
    SELECT r.ev_id, i_batch_id, r.ev_type, r.ev_data, r.ev_retry, r.ev_time,
           r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4
      FROM pgque.batch_event_rows(i_batch_id, i_after_ev_id, i_limit, i_slot, i_n) r;
END
$$;

-- Internal: the first page of a freshly opened (or re-issued) batch. A batch with nothing to
-- hand out -- for a slot: nothing of its hash class -- is finished at once, so the cursor keeps
-- moving and no batch id is left dangling.
CREATE OR REPLACE FUNCTION pgque.batch_first_page(i_batch_id bigint, i_limit int, i_slot int, i_n int)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY SELECT * FROM pgque.batch_messages(i_batch_id, NULL, i_limit, i_slot, i_n);
    IF NOT FOUND THEN
        PERFORM pgque.batch_close(i_batch_id);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.finish_batch(x_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.batch_refuse_slot(x_batch_id, 'pgque.ack_partitioned()');
    RETURN pgque.batch_close(x_batch_id);
END
$$;

-- Internal: finish_batch for any batch, slots' included (their lease is checked by the caller).
-- The cursor moves to the batch's end; a row of a mode keeps what its hook says.
CREATE OR REPLACE FUNCTION pgque.batch_close(i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE pgque.subscription
       SET sub_last_tick = CASE WHEN sub_role = 'normal' THEN sub_next_tick
                                ELSE pgque.hook_closed_cursor(sub_role, sub_next_tick, i_batch_id) END,
           sub_next_tick = NULL, sub_batch = NULL, sub_active = now()
     WHERE sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE WARNING 'finish_batch: batch % not found', i_batch_id;
        RETURN 0;
    END IF;
    RETURN 1;
END
$$;

-- Internal: the consumer name of an open batch (NULL when no such batch).
CREATE OR REPLACE FUNCTION pgque.batch_consumer_name(i_batch_id bigint)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT c.co_name FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
             WHERE s.sub_batch = i_batch_id
             LIMIT 1);
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive(i_queue text, i_consumer text, i_max_return int DEFAULT 100)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_batch bigint;
BEGIN
    IF i_max_return IS NULL OR i_max_return < 1 THEN
        RAISE EXCEPTION 'pgque.receive: max_return must be >= 1, got %', i_max_return USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('#' IN coalesce(i_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'consumer % is a partition slot consumer; use pgque.receive_partitioned()', i_consumer
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    v_batch := pgque.next_batch(i_queue, i_consumer);
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM pgque.batch_first_page(v_batch, i_max_return, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.read_batch(i_batch_id bigint, i_after_msg_id bigint DEFAULT NULL, i_max_return int DEFAULT 1000)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text;
BEGIN
    IF i_max_return IS NULL OR i_max_return < 1 THEN
        RAISE EXCEPTION 'pgque.read_batch: max_return must be >= 1, got %', i_max_return USING ERRCODE = '22023';
    END IF;
    v_consumer := pgque.batch_consumer_name(i_batch_id);
    IF v_consumer IS NULL THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    IF position('#' IN v_consumer) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot %; use pgque.read_batch_partitioned()', i_batch_id, v_consumer
            USING ERRCODE = 'PQ009';
    END IF;
    RETURN QUERY SELECT * FROM pgque.batch_messages(i_batch_id, i_after_msg_id, i_max_return, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.ack(i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text := pgque.batch_consumer_name(i_batch_id);
BEGIN
    IF position('#' IN coalesce(v_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot consumer %; use pgque.ack_partitioned()', i_batch_id, v_consumer
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    RETURN pgque.batch_close(i_batch_id);
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Failure paths: retry later, or dead letter once an event has been retried max_retries times.
-- Reader role (the retry mover: ticker role; replaying dead letters: reader and admin).
--
-- Layer: core (README.md). Calls 20_queue.sql, 30_insert.sql and 50_batch.sql; the modes' nacks
-- and dead letters (52_coop.sql to 59_partition_read_ahead.sql) go through these functions.

-- Hook, filled by 52_coop.sql: the consumer that the dead letters of subscription i_sub (whose
-- sub_role is not 'normal') belong to. The core's: its own consumer.
CREATE OR REPLACE FUNCTION pgque.hook_dead_letter_consumer(i_sub pgque.subscription)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN i_sub.sub_consumer;
END
$$;

-- Hook, filled by 55_partition.sql: the subscriptions (sub_id) of the queue whose due retries
-- the mover must hold back for now. The core holds none back.
CREATE OR REPLACE FUNCTION pgque.hook_retry_held_owners(i_queue_id int4)
RETURNS int4[]
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN '{}'::int4[];
END
$$;

-- Internal: the canonical copy of one event of an open batch (optionally within a slot), or a
-- PQ008 error. Callers pass only ids; payloads are never taken from the client.
CREATE OR REPLACE FUNCTION pgque.batch_event(i_batch_id bigint, i_ev_id bigint, i_slot int, i_n int)
RETURNS TABLE (ev_id bigint, ev_time timestamptz, ev_txid xid8, ev_retry int4, ev_type text, ev_data text,
               ev_extra1 text, ev_extra2 text, ev_extra3 text, ev_extra4 text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_ev_id IS NOT NULL THEN
        RETURN QUERY SELECT * FROM pgque.batch_event_rows(i_batch_id, i_ev_id - 1, 1, i_slot, i_n) r
                      WHERE r.ev_id = i_ev_id;
    END IF;
    IF i_ev_id IS NULL OR NOT FOUND THEN
        RAISE EXCEPTION 'msg_id % not found in batch %', i_ev_id, i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ008';
    END IF;
END
$$;

-- Internal: the open batch's subscription, or a PQ003 error.
CREATE OR REPLACE FUNCTION pgque.batch_subscription(i_batch_id bigint)
RETURNS pgque.subscription
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    SELECT * INTO s FROM pgque.subscription WHERE sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN s;
END
$$;

-- Internal: queue one event of the batch for redelivery to this subscription only.
CREATE OR REPLACE FUNCTION pgque.retry_event(i_sub pgque.subscription, i_batch_id bigint, i_ev_id bigint,
    i_retry_time timestamptz, i_slot int, i_n int)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_count int;
BEGIN
    INSERT INTO pgque.retry_queue (ev_retry_after, ev_queue, ev_id, ev_time, ev_txid, ev_owner, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    SELECT coalesce(i_retry_time, now()), i_sub.sub_queue, e.ev_id, e.ev_time, NULL, i_sub.sub_id, coalesce(e.ev_retry, 0) + 1,
           e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
      FROM pgque.batch_event(i_batch_id, i_ev_id, i_slot, i_n) e
    ON CONFLICT (ev_owner, ev_id) DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

CREATE OR REPLACE FUNCTION pgque.event_retry(x_batch_id bigint, x_event_id bigint, x_retry_time timestamptz)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.batch_subscription(x_batch_id);
BEGIN
    PERFORM pgque.batch_refuse_slot(x_batch_id, 'pgque.nack_partitioned()');
    IF NOT EXISTS (SELECT 1 FROM pgque.batch_event_rows(x_batch_id, x_event_id - 1, 1, NULL, NULL) r
                    WHERE r.ev_id = x_event_id) THEN
        RAISE EXCEPTION 'event not found' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ008',
            DETAIL = format('Batch %s has no event %s.', x_batch_id, x_event_id);
    END IF;
    RETURN pgque.retry_event(s, x_batch_id, x_event_id, x_retry_time, NULL, NULL);
END
$$;

CREATE OR REPLACE FUNCTION pgque.event_retry(x_batch_id bigint, x_event_id bigint, x_retry_seconds integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN pgque.event_retry(x_batch_id, x_event_id,
                             now() + make_interval(secs => greatest(coalesce(x_retry_seconds, 0), 0)));
END
$$;

CREATE OR REPLACE FUNCTION pgque.batch_retry(i_batch_id bigint, i_retry_seconds integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
    v_count int;
BEGIN
    SELECT * INTO s FROM pgque.subscription WHERE sub_batch = i_batch_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'batch_retry: batch % not found', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    PERFORM pgque.batch_refuse_slot(i_batch_id, 'pgque.nack_partitioned()');
    INSERT INTO pgque.retry_queue (ev_retry_after, ev_queue, ev_id, ev_time, ev_txid, ev_owner, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    SELECT now() + make_interval(secs => greatest(coalesce(i_retry_seconds, 0), 0)), s.sub_queue, e.ev_id, e.ev_time,
           NULL, s.sub_id, coalesce(e.ev_retry, 0) + 1,
           e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
      FROM pgque.batch_event_rows(i_batch_id, NULL, NULL, NULL, NULL) e
    ON CONFLICT (ev_owner, ev_id) DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- Internal: moves one event of an open batch to the dead letters of the batch's subscription
-- (for a row of a mode, of the consumer its hook names; idempotently: the same event twice is
-- one dead letter). The batch stays open.
CREATE OR REPLACE FUNCTION pgque.dead_letter_event(i_sub pgque.subscription, i_batch_id bigint, i_msg_id bigint,
    i_reason text, i_slot int, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    e record;
BEGIN
    SELECT * INTO e FROM pgque.batch_event(i_batch_id, i_msg_id, i_slot, i_n);
    INSERT INTO pgque.dead_letter (dl_queue_id, dl_consumer_id, dl_reason, ev_id, ev_time, ev_txid, ev_retry,
                                   ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
    VALUES (i_sub.sub_queue, CASE WHEN i_sub.sub_role = 'normal' THEN i_sub.sub_consumer
                 ELSE pgque.hook_dead_letter_consumer(i_sub) END, i_reason, e.ev_id, e.ev_time,
            e.ev_txid, e.ev_retry, e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4)
    ON CONFLICT (dl_queue_id, dl_consumer_id, ev_id) DO NOTHING;
END
$$;

-- Internal: the nack policy shared by nack and nack_partitioned. Retry until the event has
-- been retried max_retries times, then dead-letter it (idempotently).
CREATE OR REPLACE FUNCTION pgque.retry_nack(i_batch_id bigint, i_msg_id bigint, i_retry_after interval,
    i_reason text, i_slot int, i_n int)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.batch_subscription(i_batch_id);
    e record;
    v_max int4;
BEGIN
    SELECT * INTO e FROM pgque.batch_event(i_batch_id, i_msg_id, i_slot, i_n);
    SELECT coalesce(queue_max_retries, 5) INTO v_max FROM pgque.queue WHERE queue_id = s.sub_queue;
    IF coalesce(e.ev_retry, 0) >= v_max THEN
        PERFORM pgque.dead_letter_event(s, i_batch_id, i_msg_id, coalesce(i_reason, 'max retries exceeded'),
                                        i_slot, i_n);
    ELSE
        PERFORM pgque.retry_event(s, i_batch_id, i_msg_id,
            now() + greatest(coalesce(i_retry_after, interval '60 seconds'), interval '0'), i_slot, i_n);
    END IF;
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.nack(i_batch_id bigint, i_msg pgque.message,
    i_retry_after interval DEFAULT '60 seconds', i_reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_consumer text := pgque.batch_consumer_name(i_batch_id);
BEGIN
    IF position('#' IN coalesce(v_consumer, '')) > 0 THEN
        RAISE EXCEPTION 'batch % belongs to partition slot consumer %; retry slot batches via pgque.nack_partitioned()',
            i_batch_id, v_consumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    RETURN pgque.retry_nack(i_batch_id, (i_msg).msg_id, i_retry_after, i_reason, NULL, NULL);
END
$$;

-- Moves every due retry event back into its queue's active table, keeping its id, time, owner
-- and retry count; the new row gets a new txid, so it shows up in the next tick window, for its
-- owner only. One mover at a time (the lock conflicts with itself, not with nack).
CREATE OR REPLACE FUNCTION pgque.maint_retry_events()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_moved int;
    v_total int := 0;
BEGIN
    LOCK TABLE pgque.retry_queue IN SHARE UPDATE EXCLUSIVE MODE;
    FOR q IN SELECT * FROM pgque.queue qq
              WHERE EXISTS (SELECT 1 FROM pgque.retry_queue r WHERE r.ev_queue = qq.queue_id AND r.ev_retry_after <= now())
              ORDER BY qq.queue_id LOOP
        EXECUTE format(
            'WITH moved AS (
                 DELETE FROM pgque.retry_queue r WHERE r.ev_queue = $1 AND r.ev_retry_after <= now()
                   AND r.ev_owner <> ALL ($2)
                 RETURNING r.ev_id, r.ev_time, r.ev_owner, r.ev_retry, r.ev_type, r.ev_data,
                           r.ev_extra1, r.ev_extra2, r.ev_extra3, r.ev_extra4)
             INSERT INTO %s (ev_id, ev_time, ev_owner, ev_retry, ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT * FROM moved ORDER BY ev_id',
            pgque.event_active_table(q.queue_id))
        -- Retries a mode holds back (those of old slots while a resize drains) stay.
        USING q.queue_id, pgque.hook_retry_held_owners(q.queue_id);
        GET DIAGNOSTICS v_moved = ROW_COUNT;
        -- Retries count toward the ticker's event threshold like fresh events.
        PERFORM nextval(pgque.event_seq_name(q.queue_id)::regclass) FROM generate_series(1, v_moved);
        v_total := v_total + v_moved;
    END LOOP;
    RETURN v_total;
END
$$;

CREATE OR REPLACE FUNCTION pgque.dlq_inspect(i_queue_name text, i_limit_count int DEFAULT 100)
RETURNS SETOF pgque.dead_letter
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_limit_count < 0 THEN
        RAISE EXCEPTION 'dlq_inspect: limit must be >= 0, got %', i_limit_count USING ERRCODE = '22023',
            HINT = 'NULL means the default of 100.';
    END IF;
    RETURN QUERY
    SELECT d.* FROM pgque.dead_letter d
     WHERE d.dl_queue_id = (pgque.queue_row(i_queue_name)).queue_id
     ORDER BY d.dl_time DESC, d.dl_id DESC
     LIMIT coalesce(i_limit_count, 100);
END
$$;

-- Internal: re-sends the given dead letters of one queue as new events (new ids, in dl_id
-- order) and removes them; returns the new ids. The rows must be locked by the caller.
CREATE OR REPLACE FUNCTION pgque.dlq_resend(i_queue_id int4, i_dl_ids bigint[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    d record;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_id = i_queue_id;
    SELECT array_agg(ev_type ORDER BY dl_id) AS types, array_agg(ev_data ORDER BY dl_id) AS payloads,
           array_agg(ev_extra1 ORDER BY dl_id) AS e1, array_agg(ev_extra2 ORDER BY dl_id) AS e2,
           array_agg(ev_extra3 ORDER BY dl_id) AS e3, array_agg(ev_extra4 ORDER BY dl_id) AS e4
      INTO d
      FROM pgque.dead_letter WHERE dl_queue_id = i_queue_id AND dl_id = ANY (i_dl_ids);
    DELETE FROM pgque.dead_letter WHERE dl_queue_id = i_queue_id AND dl_id = ANY (i_dl_ids);
    RETURN pgque.event_insert_raw(q, d.types, d.payloads, d.e1, d.e2, d.e3, d.e4);
END
$$;

-- Re-sends a dead letter as a new event (new id) and removes it from the dead letters.
CREATE OR REPLACE FUNCTION pgque.dlq_replay(i_dead_letter_id bigint)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_queue int4;
BEGIN
    SELECT dl_queue_id INTO v_queue FROM pgque.dead_letter WHERE dl_id = i_dead_letter_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'dead letter entry not found: %', i_dead_letter_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    RETURN (pgque.dlq_resend(v_queue, ARRAY[i_dead_letter_id]))[1];
END
$$;

-- Re-sends every dead letter of the queue, oldest first; returns how many.
CREATE OR REPLACE FUNCTION pgque.dlq_replay_all(i_queue_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    q := pgque.queue_row(i_queue_name);
    RETURN cardinality(pgque.dlq_resend(q.queue_id, ARRAY(
        SELECT dl_id FROM pgque.dead_letter WHERE dl_queue_id = q.queue_id ORDER BY dl_id FOR UPDATE)));
END
$$;

CREATE OR REPLACE FUNCTION pgque.dlq_purge(i_queue_name text, i_older_than interval DEFAULT '30 days')
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_count int;
BEGIN
    DELETE FROM pgque.dead_letter
     WHERE dl_queue_id = (pgque.queue_row(i_queue_name)).queue_id
       AND dl_time < now() - coalesce(i_older_than, interval '30 days');
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Cooperative consumers (experimental): one logical consumer's stream split across a pool of
-- workers, each tick window to exactly one of them. Reader role.
--
-- Layer: mode (README.md). Calls the core (20_queue.sql to 51_retry.sql) and fills its hooks
-- hook_refuse_plain, hook_unregister, hook_closed_cursor (50_batch.sql) and
-- hook_dead_letter_consumer (51_retry.sql).
--
-- No table of its own: its state is the role of a subscription row (sub_role, 10_tables.sql).
-- The main row (consumer C, sub_role 'coop_main') holds the group cursor and never a batch; each
-- member row (consumer "C.S", sub_role 'coop_member') shares the main's sub_id -- so retry copies
-- and batch reads work for the whole group -- and holds a tick window only while it has a batch
-- open. Lock order everywhere: main, then the calling member, then a victim member (taken with
-- SKIP LOCKED, so never waited for).

-- Fills hook_refuse_plain (50_batch.sql): a main opens no batch of its own, a member none through
-- the plain API, and a member has no cursor to reposition (its main has).
CREATE OR REPLACE FUNCTION pgque.hook_refuse_plain(i_sub pgque.subscription, i_queue text, i_consumer text,
    i_call text)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_call = 'reposition' THEN
        IF i_sub.sub_role = 'coop_member' THEN
            RAISE EXCEPTION 'consumer % on queue % is a cooperative subconsumer; reposition its main consumer instead',
                i_consumer, i_queue USING ERRCODE = 'PQ009';
        END IF;
    ELSIF i_sub.sub_role = 'coop_main' THEN
        RAISE EXCEPTION 'consumer % on queue % is a cooperative main consumer; use cooperative receive/next_batch with a subconsumer',
            i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009',
                  HINT = format('call pgque.receive_coop(%L, %L, <subconsumer>) or pgque.next_batch(%L, %L, <subconsumer>)',
                                i_queue, i_consumer, i_queue, i_consumer);
    ELSIF i_sub.sub_role = 'coop_member' THEN
        RAISE EXCEPTION 'consumer % on queue % is a cooperative subconsumer; use receive_coop / next_batch (cooperative form) instead of the legacy 5-arg next_batch_custom',
            i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009',
                  HINT = format('call pgque.receive_coop(%L, %L, %L)', i_queue,
                                split_part(i_consumer, '.', 1),
                                substr(i_consumer, position('.' IN i_consumer) + 1));
    END IF;
END
$$;

-- Fills hook_unregister (50_batch.sql): a member leaves through unregister_subconsumer (its main
-- locked first); a main goes as a plain row once its last member has left, checked here with
-- the main locked, so no member can register before the core removes it.
CREATE OR REPLACE FUNCTION pgque.hook_unregister(i_sub pgque.subscription, i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    m pgque.subscription;
BEGIN
    IF i_sub.sub_role = 'coop_member' THEN
        RETURN pgque.coop_unregister_member(i_queue, i_consumer, 0);
    END IF;
    m := pgque.sub_lock(i_sub.sub_queue, i_consumer);
    IF m.sub_role = 'coop_main' AND pgque.coop_has_members(m) THEN
        RAISE EXCEPTION 'cannot unregister cooperative main consumer with registered subconsumers'
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009',
                  HINT = 'unregister each subconsumer with pgque.unregister_subconsumer() first';
    END IF;
    RETURN NULL;
END
$$;

-- Fills hook_closed_cursor (50_batch.sql): a member only gives its window back (the group cursor,
-- on the main row, moved past the window when it was handed out); a main never holds a batch.
CREATE OR REPLACE FUNCTION pgque.hook_closed_cursor(i_role text, i_next_tick bigint, i_batch_id bigint)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_role = 'coop_member' THEN
        RETURN NULL;
    END IF;
    IF i_role = 'coop_main' THEN
        RAISE EXCEPTION 'cannot finish cooperative main consumer batch % as normal active consumer', i_batch_id
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;
    RETURN i_next_tick;
END
$$;

-- Fills hook_dead_letter_consumer (51_retry.sql): a member's dead letters go to its main, so
-- they outlive the member.
CREATE OR REPLACE FUNCTION pgque.hook_dead_letter_consumer(i_sub pgque.subscription)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_sub.sub_role = 'coop_member' THEN
        RETURN coalesce((SELECT m.sub_consumer FROM pgque.subscription m
                          WHERE m.sub_queue = i_sub.sub_queue AND m.sub_id = i_sub.sub_id AND m.sub_role = 'coop_main'),
                        i_sub.sub_consumer);
    END IF;
    RETURN i_sub.sub_consumer;
END
$$;

-- Internal: whether a main row still has members.
CREATE OR REPLACE FUNCTION pgque.coop_has_members(i_main pgque.subscription)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM pgque.subscription m
                    WHERE m.sub_queue = i_main.sub_queue AND m.sub_id = i_main.sub_id AND m.sub_role = 'coop_member');
END
$$;

-- Internal: name rules. A member is named "<consumer>.<subconsumer>", so neither part may hold
-- a dot; "#" is reserved for partition slots.
CREATE OR REPLACE FUNCTION pgque.coop_check_names(i_queue text, i_consumer text, i_subconsumer text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_queue IS NULL OR i_queue = '' THEN
        RAISE EXCEPTION 'queue name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_consumer IS NULL OR i_consumer = '' THEN
        RAISE EXCEPTION 'consumer name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_subconsumer IS NULL OR i_subconsumer = '' THEN
        RAISE EXCEPTION 'subconsumer name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('.' IN i_consumer) > 0 THEN
        RAISE EXCEPTION 'cooperative consumer name must not contain dot: %', i_consumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('.' IN i_subconsumer) > 0 THEN
        RAISE EXCEPTION 'cooperative subconsumer name must not contain dot: %', i_subconsumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('#' IN i_consumer || i_subconsumer) > 0 THEN
        RAISE EXCEPTION 'cooperative consumer name must not contain the reserved character #: %.%', i_consumer, i_subconsumer
            USING ERRCODE = '22023';
    END IF;
    RETURN i_consumer || '.' || i_subconsumer;
END
$$;

CREATE OR REPLACE FUNCTION pgque.register_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_convert_normal boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue := pgque.queue_row(i_queue);
    m pgque.subscription;
    s pgque.subscription;
    v_co int4;
    v_created int;
BEGIN
    -- The main: created (at the newest tick) as a plain subscription, then given its role.
    v_created := pgque.register_consumer(i_queue, i_consumer);
    m := pgque.sub_lock(q.queue_id, i_consumer);
    IF v_created = 0 AND m.sub_role = 'normal' THEN
        IF NOT coalesce(i_convert_normal, false) AND NOT m.sub_was_coop_main THEN
            RAISE EXCEPTION 'consumer % on queue % is already a normal consumer; explicit conversion is required', i_consumer, i_queue
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000', HINT = 'pass i_convert_normal => true to turn it into a cooperative main consumer';
        END IF;
        IF m.sub_batch IS NOT NULL THEN
            RAISE EXCEPTION 'cannot convert active normal consumer % on queue % to cooperative main', i_consumer, i_queue
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000', HINT = format('ack its open batch %s first', m.sub_batch);
        END IF;
        v_created := 1;
    ELSIF m.sub_role = 'coop_member' THEN
        RAISE EXCEPTION 'consumer % on queue % is not a cooperative main consumer', i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    IF m.sub_role <> 'coop_main' THEN
        UPDATE pgque.subscription SET sub_role = 'coop_main', sub_was_coop_main = false
         WHERE sub_queue = m.sub_queue AND sub_consumer = m.sub_consumer;
    END IF;

    -- The member: idle (no window), sharing the main's sub_id.
    INSERT INTO pgque.consumer (co_name) VALUES (v_member) ON CONFLICT (co_name) DO NOTHING;
    SELECT co_id INTO v_co FROM pgque.consumer WHERE co_name = v_member;
    INSERT INTO pgque.subscription (sub_id, sub_queue, sub_consumer, sub_role, sub_last_tick)
    VALUES (m.sub_id, q.queue_id, v_co, 'coop_member', NULL)
    ON CONFLICT (sub_queue, sub_consumer) DO NOTHING;
    IF FOUND THEN
        RETURN 1;
    END IF;
    SELECT * INTO s FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = v_co;
    IF s.sub_role <> 'coop_member' OR s.sub_id <> m.sub_id THEN
        RAISE EXCEPTION 'consumer name % on queue % is already registered incompatibly', v_member, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ009';
    END IF;
    RETURN v_created;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_convert_normal boolean DEFAULT false)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.register_subconsumer(i_queue, i_consumer, i_subconsumer, i_convert_normal)
$$;

-- Internal: a member's open window through the nack policy, all events at once: dead letter
-- (attributed to the main) once retried max_retries times, otherwise retry in 60 seconds.
CREATE OR REPLACE FUNCTION pgque.coop_nack_window(i_sub pgque.subscription, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_max int4;
    v_count int;
BEGIN
    SELECT coalesce(queue_max_retries, 5) INTO v_max FROM pgque.queue WHERE queue_id = i_sub.sub_queue;
    WITH e AS MATERIALIZED (
             SELECT * FROM pgque.batch_event_rows(i_sub.sub_batch, NULL, NULL, NULL, NULL)),
         dead AS (
             INSERT INTO pgque.dead_letter (dl_queue_id, dl_consumer_id, dl_reason, ev_id, ev_time, ev_txid, ev_retry,
                                            ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT i_sub.sub_queue, pgque.hook_dead_letter_consumer(i_sub), i_reason, e.ev_id, e.ev_time, e.ev_txid, e.ev_retry,
                    e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
               FROM e WHERE coalesce(e.ev_retry, 0) >= v_max
             ON CONFLICT (dl_queue_id, dl_consumer_id, ev_id) DO NOTHING
             RETURNING 1),
         retried AS (
             INSERT INTO pgque.retry_queue (ev_retry_after, ev_queue, ev_id, ev_time, ev_txid, ev_owner, ev_retry,
                                            ev_type, ev_data, ev_extra1, ev_extra2, ev_extra3, ev_extra4)
             SELECT now() + interval '60 seconds', i_sub.sub_queue, e.ev_id, e.ev_time, NULL, i_sub.sub_id,
                    coalesce(e.ev_retry, 0) + 1,
                    e.ev_type, e.ev_data, e.ev_extra1, e.ev_extra2, e.ev_extra3, e.ev_extra4
               FROM e WHERE coalesce(e.ev_retry, 0) < v_max
             ON CONFLICT (ev_owner, ev_id) DO NOTHING
             RETURNING 1)
    SELECT (SELECT count(*) FROM dead) + (SELECT count(*) FROM retried) INTO v_count;
    RETURN v_count;
END
$$;

CREATE OR REPLACE FUNCTION pgque.unregister_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_batch_handling integer DEFAULT 0)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue;
    m pgque.subscription;
    s pgque.subscription;
BEGIN
    IF i_batch_handling IS NULL OR i_batch_handling NOT IN (0, 1) THEN
        RAISE EXCEPTION 'unsupported batch_handling value: %', i_batch_handling
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = '0 refuses a member with an open batch, 1 sends its events through the nack policy';
    END IF;
    q := pgque.queue_row(i_queue);
    m := pgque.sub_lock(q.queue_id, i_consumer);
    IF m.sub_role IS DISTINCT FROM 'coop_main' THEN
        RETURN 0;
    END IF;
    s := pgque.sub_lock(q.queue_id, v_member);
    IF s.sub_role IS DISTINCT FROM 'coop_member' OR s.sub_id <> m.sub_id THEN
        RETURN 0;
    END IF;
    IF s.sub_batch IS NOT NULL THEN
        IF i_batch_handling = 0 THEN
            RAISE EXCEPTION 'cannot unregister active cooperative subconsumer %/%/% without batch_handling = 1',
                i_queue, i_consumer, i_subconsumer
                USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
                      HINT = format('ack batch %s first, or pass i_batch_handling => 1 to retry or dead-letter its events', s.sub_batch);
        END IF;
        PERFORM pgque.coop_nack_window(s, format('max retries exceeded (subconsumer %s unregistered with its batch open)', v_member));
    END IF;
    DELETE FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_consumer = s.sub_consumer;
    PERFORM pgque.consumer_forget(s.sub_consumer);
    -- The last member gone: the main is a plain consumer again (as in PgQue), its cursor past
    -- every window; marked, so that a member registering again resumes the group from there.
    IF NOT pgque.coop_has_members(m) THEN
        UPDATE pgque.subscription SET sub_role = 'normal', sub_was_coop_main = true
         WHERE sub_queue = m.sub_queue AND sub_consumer = m.sub_consumer;
    END IF;
    RETURN 1;
END
$$;

-- Internal: unregister_subconsumer for a member given by its full name "<consumer>.<sub>".
CREATE OR REPLACE FUNCTION pgque.coop_unregister_member(i_queue text, i_member text, i_batch_handling integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.unregister_subconsumer(i_queue, split_part(i_member, '.', 1),
                                        substr(i_member, position('.' IN i_member) + 1), i_batch_handling)
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_batch_handling integer DEFAULT 0)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT pgque.unregister_subconsumer(i_queue, i_consumer, i_subconsumer, i_batch_handling)
$$;

-- Hands the member a tick window: the one it already holds, else a stale sibling's (with
-- i_dead_interval), else the next one after the group cursor. The main row lock serialises
-- allocation for the whole group -- and is held until the caller's transaction ends, which is
-- why workers should open batches in a short transaction of their own.
CREATE OR REPLACE FUNCTION pgque.next_batch_custom(i_queue text, i_consumer text, i_subconsumer text,
    i_min_lag interval, i_min_count int4, i_min_interval interval, i_dead_interval interval DEFAULT NULL,
    OUT batch_id bigint, OUT prev_tick_id bigint, OUT next_tick_id bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue := pgque.queue_row(i_queue);
    m pgque.subscription;
    s pgque.subscription;
    v pgque.subscription;
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    m := pgque.sub_lock(q.queue_id, i_consumer);
    s := pgque.sub_lock(q.queue_id, v_member);
    IF m.sub_role IS DISTINCT FROM 'coop_main' OR s.sub_role IS DISTINCT FROM 'coop_member' OR s.sub_id <> m.sub_id THEN
        PERFORM pgque.register_subconsumer(i_queue, i_consumer, i_subconsumer, false);
        m := pgque.sub_lock(q.queue_id, i_consumer);
        s := pgque.sub_lock(q.queue_id, v_member);
    END IF;
    IF m.sub_batch IS NOT NULL THEN
        RAISE EXCEPTION 'cooperative main consumer %/% has an unexpected active batch %', i_queue, i_consumer, m.sub_batch
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;

    IF s.sub_batch IS NOT NULL THEN
        UPDATE pgque.subscription SET sub_active = clock_timestamp()
         WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
        batch_id := s.sub_batch;
        prev_tick_id := s.sub_last_tick;
        next_tick_id := s.sub_next_tick;
        RETURN;
    END IF;

    IF i_dead_interval IS NOT NULL THEN
        -- A sibling silent for longer than the dead interval loses its window. Its row lock is
        -- only tried: a sibling acking right now keeps its batch.
        SELECT * INTO v FROM pgque.subscription o
         WHERE o.sub_queue = q.queue_id AND o.sub_id = m.sub_id AND o.sub_role = 'coop_member'
           AND o.sub_consumer <> s.sub_consumer AND o.sub_batch IS NOT NULL
           AND o.sub_active < clock_timestamp() - i_dead_interval
         ORDER BY o.sub_active
         LIMIT 1
           FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            UPDATE pgque.subscription SET sub_batch = NULL, sub_last_tick = NULL, sub_next_tick = NULL
             WHERE sub_queue = v.sub_queue AND sub_consumer = v.sub_consumer;
            -- A fresh id: the stale owner's late ack or nack finds no batch.
            batch_id := nextval('pgque.batch_id_seq');
            UPDATE pgque.subscription
               SET sub_last_tick = v.sub_last_tick, sub_next_tick = v.sub_next_tick, sub_batch = batch_id,
                   sub_active = clock_timestamp()
             WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
            prev_tick_id := v.sub_last_tick;
            next_tick_id := v.sub_next_tick;
            RETURN;
        END IF;
    END IF;

    IF m.sub_last_tick IS NULL THEN
        RAISE EXCEPTION 'PgQ corruption: cooperative main consumer % on queue % has no cursor', i_consumer, i_queue
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;
    SELECT * INTO v_last FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = m.sub_last_tick;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'PgQ corruption: cooperative main consumer % on queue % does not see tick %', i_consumer, i_queue, m.sub_last_tick
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000';
    END IF;
    v_next := pgque.batch_next_tick(v_last, i_min_lag, i_min_count, i_min_interval);
    IF v_next.tick_id IS NULL THEN
        -- Nothing to hand out; sub_active stays as it was, so an idle member never looks stale.
        RETURN;
    END IF;
    batch_id := nextval('pgque.batch_id_seq');
    UPDATE pgque.subscription SET sub_last_tick = v_next.tick_id, sub_active = now()
     WHERE sub_queue = m.sub_queue AND sub_consumer = m.sub_consumer;
    UPDATE pgque.subscription
       SET sub_last_tick = m.sub_last_tick, sub_next_tick = v_next.tick_id, sub_batch = batch_id,
           sub_active = clock_timestamp()
     WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    prev_tick_id := m.sub_last_tick;
    next_tick_id := v_next.tick_id;
END
$$;

CREATE OR REPLACE FUNCTION pgque.next_batch(i_queue text, i_consumer text, i_subconsumer text,
    i_dead_interval interval DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT b.batch_id
              FROM pgque.next_batch_custom(i_queue, i_consumer, i_subconsumer, NULL, NULL, NULL, i_dead_interval) b);
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive_coop(i_queue text, i_consumer text, i_subconsumer text,
    i_max_return int DEFAULT 100, i_dead_interval interval DEFAULT NULL)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_batch bigint;
BEGIN
    IF i_max_return IS NULL OR i_max_return < 1 THEN
        RAISE EXCEPTION 'pgque.receive_coop: max_return must be >= 1, got %', i_max_return USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    v_batch := pgque.next_batch(i_queue, i_consumer, i_subconsumer, i_dead_interval);
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY SELECT * FROM pgque.batch_first_page(v_batch, i_max_return, NULL, NULL);
END
$$;

-- Heartbeat of a member working through a long batch, from a session other than the one doing
-- the work (an update inside the worker's open transaction would not be seen by its siblings).
CREATE OR REPLACE FUNCTION pgque.touch_subconsumer(i_queue text, i_consumer text, i_subconsumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    v_count int;
BEGIN
    UPDATE pgque.subscription sub SET sub_active = clock_timestamp()
      FROM pgque.consumer c
     WHERE sub.sub_queue = (pgque.queue_row(i_queue)).queue_id
       AND c.co_id = sub.sub_consumer AND c.co_name = v_member AND sub.sub_role = 'coop_member';
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- This project's addition, the cooperative twin of dead_letter_partitioned: moves one event of
-- the member's open batch to the dead letters now, whatever its retry count -- for an event no
-- retry can fix, such as a payload the reader cannot convert. Attributed to the main consumer
-- like every dead letter of the group; idempotent; the batch stays open (ack it as usual). The
-- member row is locked first, so a sibling's takeover of the batch and this call are ordered:
-- after a takeover the old owner's call finds no open batch.
CREATE OR REPLACE FUNCTION pgque.dead_letter_subconsumer(i_queue text, i_consumer text, i_subconsumer text,
    i_msg_id bigint, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_member text := pgque.coop_check_names(i_queue, i_consumer, i_subconsumer);
    q pgque.queue := pgque.queue_row(i_queue);
    s pgque.subscription;
BEGIN
    IF i_reason IS NULL OR i_reason = '' THEN
        RAISE EXCEPTION 'a dead letter needs a reason' USING ERRCODE = '22023';
    END IF;
    s := pgque.sub_lock(q.queue_id, v_member);
    IF s.sub_role IS DISTINCT FROM 'coop_member' THEN
        RAISE EXCEPTION 'subconsumer % of cooperative consumer % on queue % is not registered', i_subconsumer,
            i_consumer, i_queue USING ERRCODE = 'PQ002';
    END IF;
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'subconsumer % of cooperative consumer % on queue % has no open batch', i_subconsumer,
            i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    PERFORM pgque.dead_letter_event(s, s.sub_batch, i_msg_id, i_reason, NULL, NULL);
    RETURN 1;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: N hash slots per logical consumer, each an ordinary subscription named
-- "<consumer>#<k>/<N>" with its own cursor, each claimed by one worker at a time under a lease.
-- Per-key order holds because every event of a key lands in one slot and a slot has one
-- reader. Reader role.
--
-- Layer: mode (README.md), in five files: this one (the tables, slot names, the checks and the
-- consumer's slot-set state that every other reads), 56_partition_subscribe.sql,
-- 57_partition_lease.sql, 58_partition_read.sql (read, ack, nack) and
-- 59_partition_read_ahead.sql, each calling only the core (20_queue.sql to 51_retry.sql) and the
-- partition files before it. 60_resize.sql builds on all five. Fills the core's hooks
-- hook_batch_end_cap (50_batch.sql) and hook_retry_held_owners (51_retry.sql). The hash of a
-- partition key, pgque.slot_of(), is the core's (50_batch.sql): the core reads a window one hash
-- class at a time.

-- One row per partitioned consumer: its pinned N and its slot-set state, which a resize
-- (60_resize.sql) changes and every partition function reads: resize_state 'draining' while the
-- N slots drain up to the seal tick and the n_next new ones wait at it; epoch counts completed
-- resizes, n_prev is the N that the last one retired.
CREATE TABLE IF NOT EXISTS pgque.partition_consumer (
    queue_id int4 NOT NULL REFERENCES pgque.queue (queue_id) ON DELETE CASCADE,
    co_name  text NOT NULL,
    n        int4 NOT NULL CHECK (n BETWEEN 1 AND 256),
    PRIMARY KEY (queue_id, co_name)
);
-- The slot-set state came with online resizing; an engine from before it gets the columns here.
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS resize_state text NOT NULL DEFAULT 'stable'
    CHECK (resize_state IN ('stable', 'draining'));
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS n_next int4 CHECK (n_next BETWEEN 1 AND 256);
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS seal_tick bigint;
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS n_prev int4;
ALTER TABLE pgque.partition_consumer ADD COLUMN IF NOT EXISTS resize_started timestamptz;

-- One lease row per subscribed slot (57_partition_lease.sql).
CREATE TABLE IF NOT EXISTS pgque.partition_slot (
    queue_id    int4 NOT NULL,
    co_name     text NOT NULL,
    slot        int4 NOT NULL,
    lease_owner text,
    lease_until timestamptz,
    lease_ttl   interval,
    epoch       bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (queue_id, co_name, slot),
    FOREIGN KEY (queue_id, co_name) REFERENCES pgque.partition_consumer (queue_id, co_name) ON DELETE CASCADE
);

-- The subscription name of slot i_slot of i_n. The numbers are cast to text first: text || int
-- is only STABLE, and an IMMUTABLE function whose body is not immutable is never inlined (it was
-- parsed and planned on every call).
CREATE OR REPLACE FUNCTION pgque.slot_consumer_name(i_consumer text, i_slot int, i_n int)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT i_consumer || '#' || i_slot::text || '/' || i_n::text
$$;

-- Internal: the subscription names of slots 0..n-1.
CREATE OR REPLACE FUNCTION pgque.slot_consumer_names(i_consumer text, i_n int)
RETURNS text[]
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT ARRAY(SELECT pgque.slot_consumer_name(i_consumer, k, i_n) FROM generate_series(0, i_n - 1) k)
$$;

-- Internal: checks names and returns the queue.
CREATE OR REPLACE FUNCTION pgque.partition_check_names(i_queue text, i_consumer text)
RETURNS pgque.queue
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_queue IS NULL OR i_queue = '' THEN
        RAISE EXCEPTION 'queue name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_consumer IS NULL OR i_consumer = '' THEN
        RAISE EXCEPTION 'consumer name must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF position('#' IN i_consumer) > 0 THEN
        RAISE EXCEPTION 'partitioned consumer name must not contain #: %', i_consumer USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = '# separates a partitioned consumer''s name from its slot number.';
    END IF;
    RETURN pgque.queue_row(i_queue);
END
$$;

-- Internal: the pinned N of a partitioned consumer, or a PQ006 error.
CREATE OR REPLACE FUNCTION pgque.partition_pinned_n(i_q pgque.queue, i_consumer text)
RETURNS int4
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_n int4;
BEGIN
    SELECT n INTO v_n FROM pgque.partition_consumer WHERE queue_id = i_q.queue_id AND co_name = i_consumer;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'consumer % on queue % is not a partitioned consumer; call pgque.subscribe_slot() first',
            i_consumer, i_q.queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006',
            HINT = 'pgque.subscribe_partitioned() subscribes all slots at one tick.';
    END IF;
    RETURN v_n;
END
$$;

-- Internal: refuses a slot number outside 0..n-1 (naming the consumer when one is given).
CREATE OR REPLACE FUNCTION pgque.slot_check_range(i_slot int, i_n int, i_consumer text, i_queue text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF i_slot IS NULL OR i_slot < 0 OR i_slot >= i_n THEN
        IF i_consumer IS NULL THEN
            RAISE EXCEPTION 'slot % out of range for n=% (valid: 0..%)', i_slot, i_n, i_n - 1 USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
        END IF;
        RAISE EXCEPTION 'slot % out of range for consumer % on queue % (valid: 0..%)', i_slot, i_consumer, i_queue, i_n - 1
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
END
$$;

-- Internal: pins N for the consumer (first caller wins, race-free) or checks it.
CREATE OR REPLACE FUNCTION pgque.partition_pin(i_q pgque.queue, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_pinned int4;
BEGIN
    IF i_n IS NULL OR i_n < 1 THEN
        RAISE EXCEPTION 'slot count n must be >= 1, got %', i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_n > 256 THEN
        RAISE EXCEPTION 'slot count n must be <= 256, got %', i_n USING ERRCODE = '22023';
    END IF;
    INSERT INTO pgque.partition_consumer (queue_id, co_name, n) VALUES (i_q.queue_id, i_consumer, i_n)
    ON CONFLICT (queue_id, co_name) DO UPDATE SET n = pgque.partition_consumer.n
    RETURNING n INTO v_pinned;
    IF v_pinned <> i_n THEN
        RAISE EXCEPTION 'consumer % on queue % is pinned to n=%; got n=% (unsubscribe all slots to change the slot count)',
            i_consumer, i_q.queue_name, v_pinned, i_n USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ006';
    END IF;
END
$$;

-- Internal: true while the consumer is being resized (its slot set drains to the seal).
CREATE OR REPLACE FUNCTION pgque.partition_resizing(i_queue_id int4, i_consumer text)
RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM pgque.partition_consumer
                    WHERE queue_id = i_queue_id AND co_name = i_consumer AND resize_state = 'draining')
$$;

-- Internal: called where a caller's N does not match the pinned one. When that N is the next
-- slot set of a resize in progress, or the set a completed resize retired, says so (PQ011), so
-- that a worker knows to switch sets rather than suspect its configuration. Otherwise returns
-- and the caller raises its plain mismatch error.
CREATE OR REPLACE FUNCTION pgque.partition_check_n(i_q pgque.queue, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer;
BEGIN
    SELECT * INTO pc FROM pgque.partition_consumer WHERE queue_id = i_q.queue_id AND co_name = i_consumer;
    IF NOT FOUND OR i_n IS NULL OR i_n = pc.n THEN
        RETURN;
    END IF;
    IF pc.resize_state = 'draining' AND i_n = pc.n_next THEN
        RAISE EXCEPTION 'consumer % of queue % is being resized from % to % slots; the % new slots open once pgque.complete_resize() has run',
            i_consumer, i_q.queue_name, pc.n, pc.n_next, pc.n_next USING ERRCODE = 'PQ011';
    END IF;
    IF i_n = pc.n_prev THEN
        RAISE EXCEPTION 'slot set n=% of consumer % on queue % was retired by a resize to n=% (resize epoch %); its leases are void: claim slots of the n=% set',
            i_n, i_consumer, i_q.queue_name, pc.n, pc.epoch, pc.n USING ERRCODE = 'PQ011';
    END IF;
END
$$;

-- Fills hook_batch_end_cap (50_batch.sql): the last tick a slot subscription may open a batch
-- to is the seal while its consumer is being resized (old slots drain up to it, new slots wait
-- at it); no limit otherwise. The read-ahead functions (59_partition_read_ahead.sql) ask it too.
CREATE OR REPLACE FUNCTION pgque.hook_batch_end_cap(i_queue_id int4, i_consumer text)
RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN (SELECT pc.seal_tick FROM pgque.partition_consumer pc
             WHERE pc.queue_id = i_queue_id AND pc.co_name = split_part(i_consumer, '#', 1)
               AND pc.resize_state = 'draining');
END
$$;

-- Fills hook_retry_held_owners (51_retry.sql): the old-slot subscriptions of the queue's
-- consumers being resized. Their retries stay in retry_queue until the resize ends: moved into
-- the event table now, they would land after the seal, which old slots never read and new slots
-- do not own -- lost.
CREATE OR REPLACE FUNCTION pgque.hook_retry_held_owners(i_queue_id int4)
RETURNS int4[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT coalesce(array_agg(s.sub_id), '{}')
      FROM pgque.partition_consumer pc
      JOIN pgque.consumer c ON c.co_name = ANY (pgque.slot_consumer_names(pc.co_name, pc.n))
      JOIN pgque.subscription s ON s.sub_consumer = c.co_id AND s.sub_queue = pc.queue_id
     WHERE pc.queue_id = i_queue_id AND pc.resize_state = 'draining'
$$;

-- Monitoring (reader): one row per slot of every partitioned consumer, also for slots nobody polls: an unpolled slot
-- pins rotation for the whole queue, so it must be visible. While a resize is in progress both
-- sets show: the old slots (slot_set 'old', blocked_by says what keeps each from the seal) and
-- the new ones ('new', waiting at the seal). lease_owner shows live leases only.
-- pending_events counts the queue's events since the slot's cursor up to the last tick (all hash
-- classes, an estimate); 0 means the slot is caught up. Events after the last tick are in no
-- batch yet: unticked_events counts them (the queue's, the same on every row) and ticker_lag is
-- the last tick's age, so a dead ticker shows as unticked_events growing with ticker_lag, where
-- pending_events alone would read 0. pending_events is PgQ's figure and includes the ids a
-- forced tick drew (force_next_tick); backlog_events is the same count without them, the
-- figure to watch (the connectors' lag metrics read it).
CREATE OR REPLACE VIEW pgque.partition_slot_status AS
SELECT q.queue_name,
       pc.co_name AS consumer,
       g.slot,
       g.n,
       CASE WHEN ps.lease_until > clock_timestamp() THEN ps.lease_owner END AS lease_owner,
       ps.lease_until,
       coalesce(ps.epoch, 0) AS epoch,
       s.sub_last_tick AS last_tick,
       greatest(lt.tick_event_seq - ct.tick_event_seq, 0) AS pending_events,
       g.slot_set,
       pc.resize_state,
       pc.epoch AS resize_epoch,
       CASE WHEN pc.resize_state = 'draining' THEN pc.n END AS old_n,
       pc.n_next AS new_n,
       pc.seal_tick,
       CASE WHEN g.slot_set <> 'old' THEN NULL
            WHEN s.sub_id IS NULL THEN 'not subscribed'
            WHEN s.sub_batch IS NOT NULL THEN 'batch ' || s.sub_batch || ' is open'
            WHEN s.sub_last_tick < pc.seal_tick THEN 'cursor at tick ' || s.sub_last_tick || ', seal at tick ' || pc.seal_tick
       END AS blocked_by,
       tb.unticked_events,
       tb.ticker_lag,
       greatest((lt.tick_event_seq - lt.tick_forced_ids) - (ct.tick_event_seq - ct.tick_forced_ids), 0) AS backlog_events
  FROM pgque.partition_consumer pc
  JOIN pgque.queue q ON q.queue_id = pc.queue_id
 CROSS JOIN LATERAL pgque.tick_backlog(q.queue_id) tb
 CROSS JOIN LATERAL (
        SELECT k, pc.n, CASE WHEN pc.resize_state = 'draining' THEN 'old' ELSE 'current' END
          FROM generate_series(0, pc.n - 1) k
        UNION ALL
        SELECT k, pc.n_next, 'new'
          FROM generate_series(0, coalesce(pc.n_next, 0) - 1) k
         WHERE pc.resize_state = 'draining'
       ) AS g(slot, n, slot_set)
  LEFT JOIN pgque.partition_slot ps
         ON ps.queue_id = pc.queue_id AND ps.co_name = pc.co_name AND ps.slot = g.slot AND g.slot_set <> 'new'
  LEFT JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(pc.co_name, g.slot, g.n)
  LEFT JOIN pgque.subscription s ON s.sub_queue = pc.queue_id AND s.sub_consumer = c.co_id
  LEFT JOIN pgque.tick ct ON ct.tick_queue = pc.queue_id AND ct.tick_id = s.sub_last_tick
  LEFT JOIN LATERAL (SELECT t.tick_event_seq, t.tick_forced_ids FROM pgque.tick t WHERE t.tick_queue = pc.queue_id
                      ORDER BY t.tick_id DESC LIMIT 1) lt ON true;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: subscribing and unsubscribing a partitioned consumer's slots. Reader role.
--
-- Layer: mode, partition (README.md). Calls the core and 55_partition.sql.

-- Internal: drops the new slot set of a resize in progress (unsubscribe_partitioned; and
-- abort_resize, 60_resize.sql).
CREATE OR REPLACE FUNCTION pgque.partition_forget_next(i_q pgque.queue, i_consumer text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_name text;
BEGIN
    FOR v_name IN SELECT unnest(pgque.slot_consumer_names(pc.co_name, pc.n_next))
                    FROM pgque.partition_consumer pc
                   WHERE pc.queue_id = i_q.queue_id AND pc.co_name = i_consumer AND pc.resize_state = 'draining' LOOP
        PERFORM pgque.sub_unregister(i_q.queue_name, v_name);
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgque.subscribe_slot(i_queue text, i_consumer text, i_slot int, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
BEGIN
    PERFORM pgque.partition_pin(q, i_consumer, i_n);
    PERFORM pgque.slot_check_range(i_slot, i_n, NULL, NULL);
    PERFORM pgque.sub_register(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), NULL);
    INSERT INTO pgque.partition_slot (queue_id, co_name, slot) VALUES (q.queue_id, i_consumer, i_slot)
    ON CONFLICT DO NOTHING;
END
$$;

-- Creates all N slots at one shared tick, so no hash class starts later than another (a
-- slot that starts later silently loses the events ticked before it existed).
CREATE OR REPLACE FUNCTION pgque.subscribe_partitioned(i_queue text, i_consumer text, i_n int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_tick bigint;
    v_present int[];
    v_other text;
BEGIN
    PERFORM pgque.partition_pin(q, i_consumer, i_n);
    IF pgque.partition_resizing(q.queue_id, i_consumer) THEN
        RETURN; -- set up already; its new slot set is the resize's (60_resize.sql)
    END IF;
    -- Slot subscriptions of this consumer under another N (left from an older set-up).
    SELECT c.co_name INTO v_other
      FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
     WHERE s.sub_queue = q.queue_id
       AND left(c.co_name, length(i_consumer) + 1) = i_consumer || '#'
       AND NOT c.co_name = ANY (ARRAY(SELECT pgque.slot_consumer_name(i_consumer, k, i_n) FROM generate_series(0, i_n - 1) k))
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'queue % already has slot subscription % that does not belong to n=%; unsubscribe it first',
            i_queue, v_other, i_n USING ERRCODE = 'PQ006';
    END IF;
    SELECT array_agg(k ORDER BY k) INTO v_present
      FROM generate_series(0, i_n - 1) k
      JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(i_consumer, k, i_n)
      JOIN pgque.subscription s ON s.sub_consumer = c.co_id AND s.sub_queue = q.queue_id;
    IF cardinality(v_present) = i_n THEN
        INSERT INTO pgque.partition_slot (queue_id, co_name, slot)
        SELECT q.queue_id, i_consumer, k FROM generate_series(0, i_n - 1) k
        ON CONFLICT DO NOTHING;
        RETURN;
    END IF;
    IF cardinality(v_present) > 0 THEN
        RAISE EXCEPTION 'consumer % of queue % is set up incompletely (slots % of % exist); call pgque.unsubscribe_partitioned() and subscribe again',
            i_consumer, i_queue, v_present, i_n USING ERRCODE = 'PQ006';
    END IF;
    SELECT max(tick_id) INTO v_tick FROM pgque.tick WHERE tick_queue = q.queue_id;
    FOR k IN 0 .. i_n - 1 LOOP
        PERFORM pgque.sub_register(i_queue, pgque.slot_consumer_name(i_consumer, k, i_n), v_tick);
        INSERT INTO pgque.partition_slot (queue_id, co_name, slot) VALUES (q.queue_id, i_consumer, k)
        ON CONFLICT DO NOTHING;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe_slot(i_queue text, i_consumer text, i_slot int)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_pc pgque.partition_consumer;
    v_n int4;
BEGIN
    -- The consumer's row, locked first: a resize (which locks it too) cannot start or end while
    -- the slot goes, and N is read under the lock.
    SELECT * INTO v_pc FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_n := v_pc.n;
    IF v_pc.resize_state = 'draining' THEN
        RAISE EXCEPTION 'cannot unsubscribe slot % of consumer % on queue % while it is being resized from % to % slots',
            i_slot, i_consumer, i_queue, v_pc.n, v_pc.n_next
            USING ERRCODE = '55000',
                  HINT = 'Complete or abort the resize first (pgque.complete_resize(), pgque.abort_resize()), or unsubscribe the whole consumer with pgque.unsubscribe_partitioned().';
    END IF;
    PERFORM pgque.slot_check_range(i_slot, v_n, i_consumer, i_queue);
    PERFORM pgque.sub_unregister(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, v_n));
    DELETE FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer AND slot = i_slot;
    DELETE FROM pgque.partition_consumer pc
     WHERE pc.queue_id = q.queue_id AND pc.co_name = i_consumer
       AND NOT EXISTS (SELECT 1 FROM pgque.partition_slot ps WHERE ps.queue_id = pc.queue_id AND ps.co_name = pc.co_name);
END
$$;

CREATE OR REPLACE FUNCTION pgque.unsubscribe_partitioned(i_queue text, i_consumer text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    v_n int4;
BEGIN
    -- Locked before N is read: a begin_resize running now finishes first (and its new slots are
    -- dropped below with the old ones), or waits and then finds no consumer to resize.
    SELECT n INTO v_n FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    FOR k IN 0 .. v_n - 1 LOOP
        PERFORM pgque.sub_unregister(i_queue, pgque.slot_consumer_name(i_consumer, k, v_n));
    END LOOP;
    PERFORM pgque.partition_forget_next(q, i_consumer);
    DELETE FROM pgque.partition_consumer WHERE queue_id = q.queue_id AND co_name = i_consumer;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: leases. A worker claims a slot, every read and ack of the slot checks (and
-- renews) that the worker still holds it, and the worker gives it back at a batch boundary.
-- Reader role.
--
-- Layer: mode, partition (README.md). Calls the core and 55_partition.sql.

-- Takes or renews the lease on one slot. Returns the lease epoch, or NULL when another live
-- worker holds it or the slot row is busy (never waits: a worker simply tries the next slot).
-- The epoch grows on every takeover, so side effects stamped with it expose zombies.
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
    IF i_ttl IS NULL OR NOT isfinite(i_ttl) OR i_ttl < interval '1 second' THEN
        RAISE EXCEPTION 'lease ttl must be >= 1 second, got %', i_ttl USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            DETAIL = 'The lease TTL must also be finite.';
    END IF;
    q := pgque.partition_check_names(i_queue, i_consumer);
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
    IF r.lease_owner = i_worker THEN
        UPDATE pgque.partition_slot SET lease_until = v_now + i_ttl, lease_ttl = i_ttl
         WHERE queue_id = r.queue_id AND co_name = r.co_name AND slot = r.slot;
        RETURN r.epoch;
    END IF;
    IF r.lease_owner IS NULL OR r.lease_until <= v_now THEN
        UPDATE pgque.partition_slot
           SET lease_owner = i_worker, lease_until = v_now + i_ttl, lease_ttl = i_ttl, epoch = epoch + 1
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
    IF r.lease_owner IS DISTINCT FROM i_worker THEN
        RETURN false;
    END IF;
    v_batch := (pgque.sub_lock(q.queue_id, pgque.slot_consumer_name(i_consumer, i_slot, v_n))).sub_batch;
    IF v_batch IS NOT NULL THEN
        RAISE EXCEPTION 'cannot release slot % of consumer % while batch % is open; ack the batch first',
            i_slot, i_consumer, v_batch USING ERRCODE = '55000';
    END IF;
    UPDATE pgque.partition_slot SET lease_owner = NULL, lease_until = NULL, lease_ttl = NULL
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
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_n int4;
    r pgque.partition_slot;
    s pgque.subscription;
BEGIN
    IF i_slot IS NULL OR i_n IS NULL OR i_worker IS NULL THEN
        RAISE EXCEPTION 'queue, consumer, slot, and n must not be null' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_worker IS NULL OR i_worker = '' THEN
        RAISE EXCEPTION 'worker id must not be empty' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
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
    IF r.lease_owner <> i_worker THEN
        RAISE EXCEPTION 'lease on slot % of consumer % on queue % is held by worker %, not %; fenced',
            i_slot, i_consumer, i_queue, r.lease_owner, i_worker USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ004';
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
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: reading a slot's batches, acking, nacking and dead-lettering them, each under
-- the slot's lease (slot_guard). Reader role.
--
-- Layer: mode, partition (README.md). Calls the core, 55_partition.sql and
-- 57_partition_lease.sql.

-- (addition) receive_partitioned for a reader that may fall behind: a slot whose cursor is
-- several ticks back gets one batch over as many of them as hold at most i_window_events events
-- of the queue (the slot's share is about 1/N of those), at least one tick; NULL is one tick per
-- batch, as receive_partitioned. Fewer, larger batches while catching up; one tick each when not.
-- The body is here, not behind a shared internal function: every set-returning layer copies the
-- page once more, and this is the connector's read path.
CREATE OR REPLACE FUNCTION pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_max int, i_window_events bigint)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_batch bigint;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.receive_partitioned: max must be >= 1, got %', i_max USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023';
    END IF;
    IF i_window_events < 1 THEN
        RAISE EXCEPTION 'pgque.receive_partitioned: window_events must be >= 1 or NULL, got %', i_window_events
            USING ERRCODE = '22023';
    END IF;
    PERFORM pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    SELECT b.batch_id INTO v_batch
      FROM pgque.batch_open(i_queue, pgque.slot_consumer_name(i_consumer, i_slot, i_n), NULL, NULL, NULL,
                            i_window_events) b;
    IF v_batch IS NULL THEN
        RETURN;
    END IF;
    -- batch_first_page, the scan run here: no set-returning layer between it and the reader.
    RETURN QUERY EXECUTE pgque.batch_scan_sql(v_batch, NULL, i_max, i_slot, i_n, true);
    IF NOT FOUND THEN
        PERFORM pgque.batch_close(v_batch);
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION pgque.receive_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_max int DEFAULT 100)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY SELECT * FROM pgque.receive_partitioned(i_queue, i_consumer, i_slot, i_n, i_worker, i_max, NULL::bigint);
END
$$;

CREATE OR REPLACE FUNCTION pgque.read_batch_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_after_msg_id bigint, i_max int DEFAULT 1000)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_batch_partitioned: max must be >= 1, got %', i_max USING ERRCODE = '22023';
    END IF;
    s := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch', i_slot, i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    RETURN QUERY EXECUTE pgque.batch_scan_sql(s.sub_batch, i_after_msg_id, i_max, i_slot, i_n, true);
END
$$;

CREATE OR REPLACE FUNCTION pgque.ack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RETURN 0;
    END IF;
    RETURN pgque.batch_close(s.sub_batch);
END
$$;

-- Acks the slot's open batch only if it is i_batch_id: a reader whose earlier ack (and the
-- receive in the same transaction) committed without it hearing back must not finish the next
-- batch, which it has not seen. 0 when the slot has no open batch or another one.
CREATE OR REPLACE FUNCTION pgque.ack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_batch_id bigint)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS DISTINCT FROM i_batch_id THEN
        RETURN 0;
    END IF;
    RETURN pgque.batch_close(s.sub_batch);
END
$$;

CREATE OR REPLACE FUNCTION pgque.nack_partitioned(i_queue text, i_consumer text, i_slot int, i_n int, i_worker text,
    i_msg pgque.message, i_retry_after interval DEFAULT '60 seconds', i_reason text DEFAULT NULL)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch to nack', i_slot, i_consumer, i_queue USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    RETURN pgque.retry_nack(s.sub_batch, (i_msg).msg_id, i_retry_after, i_reason, i_slot, i_n);
END
$$;

-- (addition) Dead-letters one event of the slot's open batch now, whatever its retry count: for
-- an event this consumer can never process (say, a payload it cannot decode), where retrying
-- would only bring it back. The batch stays open; ack it after. Repeating it is a no-op.
CREATE OR REPLACE FUNCTION pgque.dead_letter_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_msg_id bigint, i_reason text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NULL THEN
        RAISE EXCEPTION 'slot % of consumer % on queue % has no open batch', i_slot, i_consumer, i_queue USING ERRCODE = 'PQ003';
    END IF;
    IF i_reason IS NULL OR i_reason = '' THEN
        RAISE EXCEPTION 'a dead letter needs a reason' USING ERRCODE = '22023';
    END IF;
    PERFORM pgque.dead_letter_event(s, s.sub_batch, i_msg_id, i_reason, i_slot, i_n);
    RETURN 1;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Partition keys: reading ahead. While a slot's open batch is on its way, its reader may read the
-- batches that will follow; they are opened once the open batch is acked. Reader role.
--
-- Layer: mode, partition (README.md). Calls the core, 55_partition.sql and
-- 57_partition_lease.sql.

-- (addition) Read-ahead, for a slot that is behind: while its open batch i_batch_id is on its
-- way, its reader may already read the batch that will follow. Which events lie between two
-- ticks is fixed once the later tick exists (window_scan_sql), so reading them before that batch
-- is opened reads exactly what it will hold. read_ahead_window names the batch -- an id drawn
-- now, and its ticks, chosen as receive_partitioned with i_window_events would choose them once
-- the open batch is acked -- read_ahead_partitioned reads its events, and
-- open_read_ahead_partitioned opens it after the ack, provided nothing moved in between. The
-- two reads check the lease but neither renew it nor lock anything: a reader runs them on a
-- connection of their own, beside its acks and renewals.
CREATE OR REPLACE FUNCTION pgque.read_ahead_window(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    w record := pgque.read_ahead_ticks(s, i_consumer, i_batch_id, i_window_events);
BEGIN
    IF w.to_tick IS NOT NULL THEN
        batch_id := nextval('pgque.batch_id_seq');
        from_tick := w.from_tick;
        to_tick := w.to_tick;
    END IF;
END
$$;

-- Internal: the ticks of the batch after i_sub's open batch i_batch_id (see read_ahead_window);
-- NULLs when there is none.
CREATE OR REPLACE FUNCTION pgque.read_ahead_ticks(i_sub pgque.subscription, i_consumer text, i_batch_id bigint,
    i_window_events bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    w record := pgque.read_ahead_ticks_after(i_sub, i_consumer, i_batch_id, NULL, i_window_events);
BEGIN
    from_tick := w.from_tick;
    to_tick := w.to_tick;
END
$$;

-- Internal: read_ahead_ticks from tick i_after_tick on rather than from the open batch's end: for
-- a reader that has read ahead the batch after the open one (up to i_after_tick) and reads the one
-- after that too. The events of a window are fixed once its later tick exists, so reading it
-- early is safe; opening it (open_read_ahead_partitioned) still waits until the slot stands at
-- its first tick. NULL i_after_tick: the open batch's end.
CREATE OR REPLACE FUNCTION pgque.read_ahead_ticks_after(i_sub pgque.subscription, i_consumer text, i_batch_id bigint,
    i_after_tick bigint, i_window_events bigint, OUT from_tick bigint, OUT to_tick bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_from bigint;
    v_last pgque.tick;
    v_next pgque.tick;
BEGIN
    IF i_window_events < 1 THEN
        RAISE EXCEPTION 'pgque read-ahead: window_events must be >= 1 or NULL, got %', i_window_events
            USING ERRCODE = '22023';
    END IF;
    IF i_sub.sub_batch IS DISTINCT FROM i_batch_id THEN
        RETURN; -- not the open batch (any more), or a batch is open where none was named
    END IF;
    -- NULL i_batch_id: the slot has no open batch, and the window starts where it stands.
    v_from := CASE WHEN i_batch_id IS NULL THEN i_sub.sub_last_tick ELSE i_sub.sub_next_tick END;
    IF i_after_tick < v_from THEN
        RAISE EXCEPTION 'pgque.read_ahead_after_query: tick % is before the end of open batch % (tick %)',
            i_after_tick, i_batch_id, v_from USING ERRCODE = '22023';
    END IF;
    SELECT * INTO v_last FROM pgque.tick
     WHERE tick_queue = i_sub.sub_queue AND tick_id = coalesce(i_after_tick, v_from);
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_next := pgque.batch_end_tick(v_last, NULL, NULL, NULL, pgque.hook_batch_end_cap(i_sub.sub_queue, i_consumer),
                                   i_window_events);
    IF v_next.tick_id IS NULL THEN
        RETURN;
    END IF;
    from_tick := v_last.tick_id;
    to_tick := v_next.tick_id;
END
$$;

-- read_ahead_window and the first i_max events of that batch in one call, for a batch expected
-- to fit one page: the messages of the batch, each row with the batch's ticks (for
-- open_read_ahead_partitioned). No row when there is nothing to read ahead, or the batch holds no
-- event of the slot. The rest of a batch larger than the page is read once it is open
-- (read_batch_partitioned).
CREATE OR REPLACE FUNCTION pgque.read_ahead_page(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint, i_max int)
RETURNS TABLE (msg_id bigint, batch_id bigint, type text, payload text, retry_count int4, created_at timestamptz,
               extra1 text, extra2 text, extra3 text, extra4 text, from_tick bigint, to_tick bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    p record;
BEGIN
    IF i_max IS NULL OR i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_ahead_page: max must be >= 1, got %', i_max USING ERRCODE = '22023';
    END IF;
    p := pgque.read_ahead_plan(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_window_events);
    IF p.batch_id IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE pgque.window_scan_sql(p.queue, p.sub_id, p.snap1, p.snap2, NULL, i_max, i_slot, i_n,
                                               p.batch_id, ARRAY[p.from_tick, p.to_tick]);
END
$$;

-- Internal: what reading ahead of the slot's open batch i_batch_id reads -- the next batch's id
-- (drawn now), its ticks and their snapshots, the queue and the subscription -- after checking
-- the lease without renewing it; all NULL when there is nothing to read ahead (read_ahead_ticks).
CREATE OR REPLACE FUNCTION pgque.read_ahead_plan(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT queue pgque.queue, OUT sub_id int4,
    OUT snap1 pg_snapshot, OUT snap2 pg_snapshot)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    p record := pgque.read_ahead_plan_after(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, NULL,
                                            i_window_events);
BEGIN
    batch_id := p.batch_id;
    from_tick := p.from_tick;
    to_tick := p.to_tick;
    queue := p.queue;
    sub_id := p.sub_id;
    snap1 := p.snap1;
    snap2 := p.snap2;
END
$$;

-- Internal: read_ahead_plan for the window after tick i_after_tick (see read_ahead_ticks_after).
CREATE OR REPLACE FUNCTION pgque.read_ahead_plan_after(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_after_tick bigint, i_window_events bigint,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT queue pgque.queue, OUT sub_id int4,
    OUT snap1 pg_snapshot, OUT snap2 pg_snapshot)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    w record := pgque.read_ahead_ticks_after(s, i_consumer, i_batch_id, i_after_tick, i_window_events);
BEGIN
    IF w.to_tick IS NULL THEN
        RETURN;
    END IF;
    SELECT * INTO queue FROM pgque.queue q WHERE q.queue_id = s.sub_queue;
    SELECT tick_snapshot INTO snap1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = w.from_tick;
    SELECT tick_snapshot INTO snap2 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = w.to_tick;
    batch_id := nextval('pgque.batch_id_seq');
    from_tick := w.from_tick;
    to_tick := w.to_tick;
    sub_id := s.sub_id;
END
$$;

-- (addition) read_ahead_page without the set-returning function: the batch's id and ticks, and
-- two queries over its events of the slot as messages of that batch, for the caller to run
-- itself. query: the first i_max of them (NULL: all) in event order. any_order_query: at most
-- i_max of them in no set order; fewer than i_max are all of them, which the reader puts in order
-- itself, else query says which come first. A reader may select from the queue's event tables
-- (pgque_reader can); a set-returning function copies every row it returns once more, and a sort
-- on the server copies every row too: for ~1 KB events each costs about as much as the scan.
-- Which events the queries find is fixed once the later tick exists, so they may run at any time
-- after this call. No row when there is nothing to read ahead.
CREATE OR REPLACE FUNCTION pgque.read_ahead_query(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint, i_max int,
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
        SELECT r.batch_id, r.from_tick, r.to_tick, r.query, r.any_order_query
          FROM pgque.read_ahead_slots_query(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id,
                                            i_window_events, i_max, NULL) r;
END
$$;

-- (addition) read_ahead_query for a reader that leases several slots of the consumer: also
-- slots_query, the same window's events of i_slot and of every slot in i_slots, in no set order,
-- with pgque.message's columns (all as messages of the batch named here) and the slot each event
-- belongs to, at most i_max for each slot asked for (i_max NULL: all). A reader whose slots stand
-- at the same tick reads their next batches in one scan of the window this way, rather than one
-- scan each: a scan reads every event of the window to find the slot's, so N slots read it N
-- times. Only i_slot's lease is checked: the rows of the other slots are of use to their reader
-- only once their own read_ahead_query names the same ticks, which checks theirs. slots_query is
-- NULL when i_slots is NULL or empty, or with one slot. 22023 for a slot in i_slots out of range.
-- NULL i_batch_id reads a slot that has no open batch (a new lease, say): the window from where
-- it stands, which open_read_ahead_partitioned then opens; no row when it has an open batch. So
-- the slots of a reader that start together read their first batches in one scan too.
CREATE OR REPLACE FUNCTION pgque.read_ahead_slots_query(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_window_events bigint, i_max int, i_slots int[],
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text,
    OUT slots_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
        SELECT * FROM pgque.read_ahead_queries(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, NULL,
                                               i_window_events, i_max, i_slots);
END
$$;

-- (addition) read_ahead_slots_query for the batch after the one read ahead: the window from tick
-- i_after_tick (the to_tick a read-ahead named) on, while batch i_batch_id is still the slot's
-- open batch. A reader that streams large batches reads two ahead this way, so the read of a
-- batch overlaps the sending of the one before it, not only of its own predecessor's tail. The
-- window's events are fixed once its later tick exists; open_read_ahead_partitioned opens it only
-- once the slot stands at i_after_tick (and refuses it otherwise). NULL i_after_tick is
-- read_ahead_slots_query. No row when i_batch_id is not the open batch or no window follows;
-- 22023 for a tick before the open batch's end.
CREATE OR REPLACE FUNCTION pgque.read_ahead_after_query(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_after_tick bigint, i_window_events bigint, i_max int, i_slots int[],
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text,
    OUT slots_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    RETURN QUERY
        SELECT * FROM pgque.read_ahead_queries(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_after_tick,
                                               i_window_events, i_max, i_slots);
END
$$;

-- Internal: read_ahead_slots_query and read_ahead_after_query (NULL i_after_tick: the former).
CREATE OR REPLACE FUNCTION pgque.read_ahead_queries(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_after_tick bigint, i_window_events bigint, i_max int, i_slots int[],
    OUT batch_id bigint, OUT from_tick bigint, OUT to_tick bigint, OUT query text, OUT any_order_query text,
    OUT slots_query text)
RETURNS SETOF record
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    p record;
    v_slots int[];
    v_subs int4[];
BEGIN
    IF i_max < 1 THEN
        RAISE EXCEPTION 'pgque.read_ahead_query: max must be >= 1 or NULL, got %', i_max USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(i_slots) k WHERE k IS NULL OR k < 0 OR k >= i_n) THEN
        RAISE EXCEPTION 'pgque.read_ahead_slots_query: slots must be between 0 and %, got %', i_n - 1, i_slots
            USING ERRCODE = '22023';
    END IF;
    p := pgque.read_ahead_plan_after(i_queue, i_consumer, i_slot, i_n, i_worker, i_batch_id, i_after_tick,
                                     i_window_events);
    IF p.batch_id IS NULL THEN
        RETURN;
    END IF;
    batch_id := p.batch_id;
    from_tick := p.from_tick;
    to_tick := p.to_tick;
    query := pgque.window_scan_sql(p.queue, p.sub_id, p.snap1, p.snap2, NULL, i_max, i_slot, i_n, p.batch_id);
    any_order_query := pgque.window_scan_rows(p.queue, p.sub_id, p.snap1, p.snap2, NULL, i_slot, i_n, p.batch_id,
                                              NULL)
                       || CASE WHEN i_max IS NULL THEN '' ELSE ' LIMIT ' || i_max END;
    v_slots := ARRAY(SELECT DISTINCT k FROM unnest(array_append(i_slots, i_slot)) k ORDER BY k);
    IF i_n > 1 AND cardinality(v_slots) > 1 THEN
        -- Each slot is a subscription of its own, and a retried event comes back owned by its slot's.
        v_subs := ARRAY(SELECT sub.sub_id FROM unnest(v_slots) WITH ORDINALITY AS k(slot, i)
                          JOIN pgque.consumer c ON c.co_name = pgque.slot_consumer_name(i_consumer, k.slot, i_n)
                          JOIN pgque.subscription sub ON sub.sub_consumer = c.co_id AND sub.sub_queue = (p.queue).queue_id
                         ORDER BY k.i);
        IF cardinality(v_subs) = cardinality(v_slots) THEN
            slots_query := pgque.window_scan_select(p.queue, p.snap1, p.snap2,
                    pgque.window_message_columns(p.batch_id) || format(', pgque.slot_of(e.ev_extra1, %s) AS slot', i_n),
                    format('pgque.slot_of(e.ev_extra1, %1$s) = ANY (%2$L::int[]) AND (e.ev_owner IS NULL '
                           'OR e.ev_owner = (%3$L::int4[])[array_position(%2$L::int[], pgque.slot_of(e.ev_extra1, %1$s))])',
                           i_n, v_slots, v_subs))
                           || CASE WHEN i_max IS NULL THEN '' ELSE ' LIMIT ' || i_max::bigint * cardinality(v_slots) END;
        END IF;
    END IF;
    RETURN NEXT;
END
$$;

-- The events of the slot between ticks i_from_tick and i_to_tick, as messages of batch
-- i_batch_id (see read_ahead_window); nothing is opened.
CREATE OR REPLACE FUNCTION pgque.read_ahead_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_from_tick bigint, i_to_tick bigint)
RETURNS SETOF pgque.message
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription;
    q pgque.queue;
    v_snap1 pg_snapshot;
    v_snap2 pg_snapshot;
BEGIN
    IF i_batch_id IS NULL OR i_from_tick IS NULL OR i_to_tick IS NULL OR i_to_tick <= i_from_tick THEN
        RAISE EXCEPTION 'pgque.read_ahead_partitioned: a batch id and two ticks in order are required, got %, % and %',
            i_batch_id, i_from_tick, i_to_tick USING ERRCODE = '22023';
    END IF;
    s := pgque.slot_check_lease(i_queue, i_consumer, i_slot, i_n, i_worker, false);
    SELECT * INTO q FROM pgque.queue WHERE queue_id = s.sub_queue;
    SELECT tick_snapshot INTO v_snap1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_from_tick;
    SELECT tick_snapshot INTO v_snap2 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_to_tick;
    IF v_snap1 IS NULL OR v_snap2 IS NULL THEN
        RAISE EXCEPTION 'pgque.read_ahead_partitioned: no ticks % and % on queue %', i_from_tick, i_to_tick, i_queue
            USING ERRCODE = '22023';
    END IF;
    RETURN QUERY EXECUTE pgque.window_scan_sql(q, s.sub_id, v_snap1, v_snap2, NULL, NULL, i_slot, i_n, i_batch_id);
END
$$;

-- Opens the slot's batch read ahead: batch i_batch_id from i_from_tick to i_to_tick, if the
-- slot stands at i_from_tick with no open batch (its previous batch acked), the lease is the
-- caller's (renewed) and a resize does not seal the queue before i_to_tick. True when the
-- slot's open batch is that batch (also when an earlier call opened it and its answer was lost);
-- false, changing nothing, otherwise: the reader then drops what it read ahead and receives.
CREATE OR REPLACE FUNCTION pgque.open_read_ahead_partitioned(i_queue text, i_consumer text, i_slot int, i_n int,
    i_worker text, i_batch_id bigint, i_from_tick bigint, i_to_tick bigint)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    s pgque.subscription := pgque.slot_guard(i_queue, i_consumer, i_slot, i_n, i_worker);
BEGIN
    IF s.sub_batch IS NOT NULL THEN
        RETURN s.sub_batch = i_batch_id AND s.sub_last_tick = i_from_tick AND s.sub_next_tick = i_to_tick;
    END IF;
    IF s.sub_last_tick IS DISTINCT FROM i_from_tick OR i_to_tick IS NULL OR i_to_tick <= i_from_tick
       OR i_to_tick > pgque.hook_batch_end_cap(s.sub_queue, i_consumer)
       OR NOT EXISTS (SELECT 1 FROM pgque.tick WHERE tick_queue = s.sub_queue AND tick_id = i_to_tick) THEN
        RETURN false;
    END IF;
    UPDATE pgque.subscription
       SET sub_batch = i_batch_id, sub_next_tick = i_to_tick, sub_active = now()
     WHERE sub_queue = s.sub_queue AND sub_consumer = s.sub_consumer;
    RETURN true;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Online resize of a partitioned consumer's slot count N, with per-key order intact. Reader role
-- (the Kafka source connector, which runs as pgque_reader, resizes when its pgque.slots changes).
--
-- Layer: mode, on top of the partition files (README.md). Calls the core and 55_partition.sql to
-- 59_partition_read_ahead.sql. Its state is the partitioned consumer's slot-set state
-- (pgque.partition_consumer, 55_partition.sql), which every partition function reads; this file
-- holds the operations that change it.
--
-- The boundary is a tick, the seal: begin_resize writes it and registers the N' new slots at it.
-- While the consumer is "draining", no slot subscription of it may open a batch that ends after
-- the seal (the core's batch_open asks hook_batch_end_cap): the old slots read up to the seal and
-- stop, the new slots wait at it. Once every old slot stands at the seal with no open batch,
-- every event of the old epoch has been acked; complete_resize then retires the old slots and the
-- new ones read on from the seal. An event belongs to the epoch of the window its transaction
-- became visible in, so a producer transaction that commits after the seal is new-epoch, whatever
-- its event id. abort_resize drops the new slots; the old ones never passed the seal, so they
-- simply read on. docs/slots.md records every decision.

-- Internal: the old slots of a consumer being resized that still block completion, and why.
CREATE OR REPLACE FUNCTION pgque.resize_blockers(i_queue_id int4, i_consumer text)
RETURNS TABLE (slot int, blocked_by text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT st.slot, st.blocked_by
      FROM pgque.partition_slot_status st JOIN pgque.queue q ON q.queue_name = st.queue_name
     WHERE q.queue_id = i_queue_id AND st.consumer = i_consumer AND st.slot_set = 'old' AND st.blocked_by IS NOT NULL
     ORDER BY st.slot
$$;

-- Internal: the partitioned consumer's row, locked: begin, complete and abort run one at a time.
CREATE OR REPLACE FUNCTION pgque.resize_lock(i_q pgque.queue, i_consumer text)
RETURNS pgque.partition_consumer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer;
BEGIN
    PERFORM pgque.partition_pinned_n(i_q, i_consumer);
    SELECT * INTO pc FROM pgque.partition_consumer
     WHERE queue_id = i_q.queue_id AND co_name = i_consumer FOR UPDATE;
    IF NOT FOUND THEN
        -- Unsubscribed while we waited for its row.
        PERFORM pgque.partition_pinned_n(i_q, i_consumer);
    END IF;
    RETURN pc;
END
$$;

-- Internal: resize_lock for complete and abort, which need a resize in progress.
CREATE OR REPLACE FUNCTION pgque.resize_lock_draining(i_q pgque.queue, i_consumer text)
RETURNS pgque.partition_consumer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    pc pgque.partition_consumer := pgque.resize_lock(i_q, i_consumer);
BEGIN
    IF pc.resize_state <> 'draining' THEN
        RAISE EXCEPTION 'consumer % of queue % is not being resized', i_consumer, i_q.queue_name USING ERRCODE = '55000';
    END IF;
    RETURN pc;
END
$$;

-- Starts moving the consumer from its N slots to i_new_n: writes the seal tick, creates the new
-- slots at it, and gates both sets at it. Returns the seal tick.
CREATE OR REPLACE FUNCTION pgque.begin_resize(i_queue text, i_consumer text, i_new_n int)
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    pc pgque.partition_consumer;
    v_names text[];
    v_clash text;
    v_seal bigint;
BEGIN
    IF i_new_n IS NULL OR i_new_n < 1 OR i_new_n > 256 THEN
        RAISE EXCEPTION 'slot count n must be between 1 and 256, got %', i_new_n USING ERRCODE = '22023';
    END IF;
    pc := pgque.resize_lock(q, i_consumer);
    IF pc.resize_state = 'draining' THEN
        RAISE EXCEPTION 'consumer % of queue % is already being resized from % to % slots; complete or abort that resize first',
            i_consumer, i_queue, pc.n, pc.n_next USING ERRCODE = '55000';
    END IF;
    IF i_new_n = pc.n THEN
        RAISE EXCEPTION 'consumer % of queue % already has % slots', i_consumer, i_queue, pc.n USING ERRCODE = '22023';
    END IF;
    -- The seal is a tick of our own; a queue ticked from elsewhere or paused cannot get one.
    IF q.queue_external_ticker THEN
        RAISE EXCEPTION 'This queue has external tick source.' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s gets its ticks from the four-argument ticker(); a resize needs a seal tick of its own.', i_queue);
    END IF;
    IF q.queue_ticker_paused THEN
        RAISE EXCEPTION 'Ticker has been paused for this queue' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has ticker_paused = true; a resize needs a seal tick.', i_queue);
    END IF;
    v_names := pgque.slot_consumer_names(i_consumer, i_new_n);
    SELECT c.co_name INTO v_clash
      FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
     WHERE s.sub_queue = q.queue_id AND c.co_name = ANY (v_names)
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'queue % already has subscription %, which the new slot set needs; unsubscribe it first',
            i_queue, v_clash USING ERRCODE = 'PQ006';
    END IF;
    -- A retry mover still running could commit after the seal's snapshot and put old-slot
    -- retries after the seal. Wait for it; movers that start later see the resize and hold
    -- those retries back.
    LOCK TABLE pgque.retry_queue IN SHARE UPDATE EXCLUSIVE MODE;
    v_seal := pgque.tick_insert(q.queue_id);
    UPDATE pgque.partition_consumer
       SET resize_state = 'draining', n_next = i_new_n, seal_tick = v_seal, resize_started = now()
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    FOR k IN 0 .. i_new_n - 1 LOOP
        PERFORM pgque.sub_register(i_queue, v_names[k + 1], v_seal);
    END LOOP;
    RETURN v_seal;
END
$$;

-- True when complete_resize would succeed now: every old slot stands at the seal with no open
-- batch. False when no resize is in progress.
CREATE OR REPLACE FUNCTION pgque.resize_ready(i_queue text, i_consumer text)
RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
BEGIN
    PERFORM pgque.partition_pinned_n(q, i_consumer);
    RETURN pgque.partition_resizing(q.queue_id, i_consumer)
       AND NOT EXISTS (SELECT 1 FROM pgque.resize_blockers(q.queue_id, i_consumer));
END
$$;

-- Ends the old epoch: re-checks readiness under the locks that reads and acks take, moves the
-- old slots' pending retries and dead letters to the new slot of their key, retires the old
-- slots and their leases, and makes the new N the pinned one. Returns the new N.
CREATE OR REPLACE FUNCTION pgque.complete_resize(i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    pc pgque.partition_consumer;
    v_old text[];
    v_blockers text;
    v_old_subs int4[];
    v_old_cos int4[];
    v_lease_epoch bigint;
BEGIN
    pc := pgque.resize_lock_draining(q, i_consumer);
    v_old := pgque.slot_consumer_names(i_consumer, pc.n);
    -- Wait for reads and acks in flight on old slots, in the order they lock: lease row, then
    -- subscription.
    PERFORM 1 FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer ORDER BY slot FOR UPDATE;
    SELECT array_agg(s.sub_id ORDER BY s.sub_id), array_agg(s.sub_consumer ORDER BY s.sub_id) INTO v_old_subs, v_old_cos
      FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
     WHERE s.sub_queue = q.queue_id AND c.co_name = ANY (v_old);
    PERFORM 1 FROM pgque.subscription WHERE sub_queue = q.queue_id AND sub_id = ANY (v_old_subs)
     ORDER BY sub_id FOR UPDATE;
    SELECT string_agg('slot ' || b.slot || ': ' || b.blocked_by, '; ' ORDER BY b.slot) INTO v_blockers
      FROM pgque.resize_blockers(q.queue_id, i_consumer) b;
    IF v_blockers IS NOT NULL THEN
        RAISE EXCEPTION 'resize of consumer % on queue % from % to % slots is not ready: %',
            i_consumer, i_queue, pc.n, pc.n_next, v_blockers USING ERRCODE = '55000';
    END IF;

    -- Pending retries and dead letters follow their key to its new slot.
    UPDATE pgque.retry_queue r
       SET ev_owner = (SELECT s.sub_id FROM pgque.subscription s JOIN pgque.consumer c ON c.co_id = s.sub_consumer
                        WHERE s.sub_queue = q.queue_id
                          AND c.co_name = pgque.slot_consumer_name(i_consumer, pgque.slot_of(r.ev_extra1, pc.n_next), pc.n_next))
     WHERE r.ev_queue = q.queue_id AND r.ev_owner = ANY (v_old_subs);
    UPDATE pgque.dead_letter d
       SET dl_consumer_id = (SELECT c.co_id FROM pgque.consumer c
                              WHERE c.co_name = pgque.slot_consumer_name(i_consumer, pgque.slot_of(d.ev_extra1, pc.n_next), pc.n_next))
     WHERE d.dl_queue_id = q.queue_id AND d.dl_consumer_id = ANY (v_old_cos);

    -- New lease rows start above every old epoch, so lease epochs stay usable as fencing tokens
    -- across the switch.
    SELECT max(epoch) INTO v_lease_epoch FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer;
    DELETE FROM pgque.partition_slot WHERE queue_id = q.queue_id AND co_name = i_consumer;
    FOR k IN 0 .. pc.n - 1 LOOP
        PERFORM pgque.sub_unregister(i_queue, v_old[k + 1]);
    END LOOP;
    INSERT INTO pgque.partition_slot (queue_id, co_name, slot, epoch)
    SELECT q.queue_id, i_consumer, k, coalesce(v_lease_epoch, 0) FROM generate_series(0, pc.n_next - 1) k;
    UPDATE pgque.partition_consumer
       SET n = n_next, n_prev = n, n_next = NULL, seal_tick = NULL, resize_state = 'stable',
           epoch = epoch + 1, resize_started = NULL
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    RETURN pc.n_next;
END
$$;

-- Gives up a resize in progress: drops the new slots (they never read anything) and lifts the
-- gate; the old slots read on from where they are. Returns the N that stays.
CREATE OR REPLACE FUNCTION pgque.abort_resize(i_queue text, i_consumer text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue := pgque.partition_check_names(i_queue, i_consumer);
    pc pgque.partition_consumer;
BEGIN
    pc := pgque.resize_lock_draining(q, i_consumer);
    PERFORM pgque.partition_forget_next(q, i_consumer);
    UPDATE pgque.partition_consumer
       SET n_next = NULL, seal_tick = NULL, resize_state = 'stable', resize_started = NULL
     WHERE queue_id = q.queue_id AND co_name = i_consumer;
    RETURN pc.n;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Producer idempotency: a TTL window of idempotency keys per queue (like SQS deduplication ids).
-- The claim and the event share the caller's transaction, so a rolled-back send frees its key
-- and no key is ever claimed without its event. Writer role.
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
CREATE INDEX IF NOT EXISTS idem_expires_at_idx ON pgque.idem (expires_at);
ALTER TABLE pgque.idem DROP CONSTRAINT IF EXISTS idem_queue_id_fkey;

-- Internal: TTL check and the queue, locked against drop_queue for the transaction.
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
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Queue life cycle: create, drop, configure. Admin only.
--
-- Layer: operations (README.md), above every layer whose state a queue carries: dropping a queue
-- removes the consumers of every mode (52_coop.sql, the partition files) and its producers'
-- idempotency keys (65_idem.sql). Calls any earlier file.

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
    INSERT INTO pgque.queue (queue_id, queue_name, queue_switch_step1, queue_switch_step2,
                             queue_data_pfx, queue_event_seq, queue_tick_seq)
    VALUES (v_id, i_queue_name, pgque.txid_current(), pgque.txid_current(),
            'pgque.' || v_pfx, 'pgque.' || v_pfx || '_id_seq', 'pgque.' || v_pfx || '_tick_seq')
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

    -- A first tick so that consumers can subscribe at once.
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
    -- The queue's dead letters go with it (an admin's decision), and so do the consumer rows
    -- that only they kept.
    WITH gone AS (DELETE FROM pgque.dead_letter WHERE dl_queue_id = q.queue_id RETURNING dl_consumer_id)
    DELETE FROM pgque.consumer co
     WHERE co.co_id IN (SELECT dl_consumer_id FROM gone)
       AND NOT EXISTS (SELECT 1 FROM pgque.subscription o WHERE o.sub_consumer = co.co_id)
       AND NOT EXISTS (SELECT 1 FROM pgque.dead_letter d WHERE d.dl_consumer_id = co.co_id AND d.dl_queue_id <> q.queue_id);
    EXECUTE format('DROP TABLE IF EXISTS %s CASCADE', pgque.event_table_name(q.queue_id, NULL));
    DELETE FROM pgque.tick WHERE tick_queue = q.queue_id;
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
        ('max_retries',        'queue_max_retries',        'int4')
    ) AS p(name, col, typ) WHERE p.name = v_param;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'cannot change parameter "%"', x_param_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023',
            HINT = 'Allowed: ticker_max_count, ticker_max_lag, ticker_idle_period, ticker_paused, rotation_period, external_ticker, disable_insert, max_retries.';
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
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Rotation reclaims storage by TRUNCATE instead of DELETE + VACUUM. Two steps that must run
-- in separate transactions: step 1 switches the active table, step 2 (later) records a txid
-- issued after the switch was committed, from which on only the new table is written. Ticker
-- role.
--
-- Layer: on top (README.md). Calls any earlier file (maint() reaps 65_idem.sql's keys).

CREATE OR REPLACE FUNCTION pgque.maint_rotate_tables_step1(i_queue_name text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_lowest bigint;
    v_lowest_xmin bigint;
    v_next int4;
    v_table text;
BEGIN
    PERFORM 1 FROM pgque.queue WHERE queue_name = i_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'queue not found: %', i_queue_name USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001';
    END IF;
    -- Rotation never waits behind producers: only non-key columns change, so NO KEY UPDATE,
    -- which idempotent sends (FOR KEY SHARE) do not block; and a row held by anyone else (a
    -- REPEATABLE READ producer's FOR SHARE, a forced tick) is skipped until the next round, so
    -- maint() never holds one queue's row while it waits for another's.
    SELECT * INTO q FROM pgque.queue WHERE queue_name = i_queue_name FOR NO KEY UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    IF q.queue_switch_step2 IS NULL OR q.queue_switch_time + q.queue_rotation_period >= now() THEN
        RETURN 0;
    END IF;
    IF pgque.txid_current() < q.queue_switch_step1 THEN
        RAISE EXCEPTION 'queue % maint failure: step1=%, current=%', i_queue_name, q.queue_switch_step1, pgque.txid_current()
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:XX000', DETAIL = 'The current transaction id is below the last switch: restored or corrupt state.';
    END IF;

    -- The slowest cursor decides: while it may still need events written before the last
    -- switch was settled, the oldest table must stay.
    SELECT min(sub_last_tick) INTO v_lowest FROM pgque.subscription WHERE sub_queue = q.queue_id;
    IF v_lowest IS NOT NULL THEN
        SELECT pg_snapshot_xmin(tick_snapshot)::text::bigint INTO v_lowest_xmin
          FROM pgque.tick WHERE tick_queue = q.queue_id AND tick_id = v_lowest;
        IF v_lowest_xmin IS NULL OR v_lowest_xmin <= q.queue_switch_step2 THEN
            RETURN 0;
        END IF;
    END IF;

    v_next := (q.queue_cur_table + 1) % q.queue_ntables;
    v_table := pgque.event_table_name(q.queue_id, v_next);
    BEGIN
        -- Someone reading the table (a backup, say): try again at the next maint().
        EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE NOWAIT', v_table);
    EXCEPTION WHEN lock_not_available THEN
        RETURN 0;
    END;
    EXECUTE format('TRUNCATE %s', v_table);

    UPDATE pgque.queue
       SET queue_cur_table = v_next, queue_switch_time = now(),
           queue_switch_step1 = pgque.txid_current(), queue_switch_step2 = NULL
     WHERE queue_id = q.queue_id;

    -- Keep ticks back to the previous switch so consumers can still be repositioned there;
    -- always keep the newest tick so new consumers can subscribe.
    DELETE FROM pgque.tick t
     WHERE t.tick_queue = q.queue_id
       AND pg_snapshot_xmin(t.tick_snapshot)::text::bigint < q.queue_switch_step2
       AND t.tick_id < (SELECT max(tick_id) FROM pgque.tick WHERE tick_queue = q.queue_id)
       AND NOT EXISTS (SELECT 1 FROM pgque.subscription s
                        WHERE s.sub_queue = q.queue_id AND t.tick_id IN (s.sub_last_tick, s.sub_next_tick));
    RETURN 1;
END
$$;

CREATE OR REPLACE FUNCTION pgque.maint_rotate_tables_step2()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_count int;
BEGIN
    -- Like step 1, never waits for a producer's lock on the row: such a queue waits for the next round.
    UPDATE pgque.queue SET queue_switch_step2 = pgque.txid_current()
     WHERE queue_id IN (SELECT queue_id FROM pgque.queue WHERE queue_switch_step2 IS NULL
                           FOR NO KEY UPDATE SKIP LOCKED);
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END
$$;

-- Periodic maintenance (not retries: that is maint_retry_events): rotation step 1 for every
-- queue that is due, then the engine's extra maintenance (expired idempotency keys). Returns the
-- number of operations performed.
CREATE OR REPLACE FUNCTION pgque.maint()
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
    v_fn text;
    v_ops int := 0;
BEGIN
    FOR q IN SELECT * FROM pgque.queue ORDER BY queue_name LOOP
        v_ops := v_ops + pgque.maint_rotate_tables_step1(q.queue_name);
        -- The engine's own extra maintenance, for every queue that needs it: expired
        -- idempotency keys.
        IF EXISTS (SELECT 1 FROM pgque.idem i WHERE i.queue_id = q.queue_id AND i.expires_at < clock_timestamp()) THEN
            PERFORM pgque.maint_idem(q.queue_name);
            v_ops := v_ops + 1;
        END IF;
        -- Nothing else: a function name read from the table never reaches SQL that runs with the
        -- owner's rights. (pgque.maint_idem, which engines before 0.4.0 listed there, runs above.)
        FOREACH v_fn IN ARRAY coalesce(q.queue_extra_maint, '{}'::text[]) LOOP
            IF v_fn <> 'pgque.maint_idem' THEN
                RAISE WARNING 'maint: skipping extra maintenance function % of queue %: not one of the engine''s',
                    v_fn, q.queue_name;
            END IF;
        END LOOP;
    END LOOP;
    RETURN v_ops;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Kafka offsets stored with the events (this project's addition, for the sink connector's
-- exactly-once mode): the sink writes a batch of events and the next offset of each Kafka
-- partition in ONE transaction, and on start seeks each partition to what is stored here.
-- Writer role: a sink needs no more rights than sending. A connector's offsets belong to the
-- login role that first wrote them: only that role, or a member of the admin role, may read,
-- move, set or forget them, so one writer cannot read or rewrite another connector's offsets.
--
-- Layer: on top (README.md). Owns its two tables; calls nothing of the queues.

CREATE TABLE IF NOT EXISTS pgque.sink_offset (
    connector   text NOT NULL,
    topic       text NOT NULL,
    kafka_partition int4 NOT NULL,
    next_offset bigint NOT NULL CHECK (next_offset >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (connector, topic, kafka_partition)
);

-- Who may change a connector's offsets: the login role (session_user, since the functions run
-- as their owner) that wrote them first. A separate table, so an upgraded install gets it.
CREATE TABLE IF NOT EXISTS pgque.sink_offset_owner (
    connector  text PRIMARY KEY,
    owner_role name NOT NULL,
    since      timestamptz NOT NULL DEFAULT now()
);

-- Internal: refuses (42501) a caller that is neither the owner of the connector's offsets (the
-- login role that first wrote some) nor a member of the admin role. With i_claim, the offsets of
-- a connector nobody owns yet become the caller's: only writing offsets claims a name, never
-- reading or forgetting them, so no role can take a name the real sink has not used yet by
-- calling sink_reset_offsets. A first write racing another role's first write waits for it, then
-- finds the other owner.
CREATE OR REPLACE FUNCTION pgque.sink_check_owner(i_connector text, i_claim boolean)
RETURNS void
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_owner name;
BEGIN
    SELECT owner_role INTO v_owner FROM pgque.sink_offset_owner WHERE connector = i_connector;
    IF NOT FOUND AND i_claim THEN
        INSERT INTO pgque.sink_offset_owner (connector, owner_role) VALUES (i_connector, session_user)
        ON CONFLICT (connector) DO NOTHING;
        SELECT owner_role INTO v_owner FROM pgque.sink_offset_owner WHERE connector = i_connector;
    END IF;
    IF v_owner IS NOT NULL AND v_owner <> session_user AND NOT pg_has_role(session_user, pgque.role_name('admin'), 'MEMBER') THEN
        RAISE EXCEPTION 'the stored offsets of connector % belong to role %; role % may not read or change them', i_connector,
            v_owner, session_user
            USING ERRCODE = '42501',
                  HINT = format('Run the connector as the role that stored its offsets, or ask a member of %s.', pgque.role_name('admin'));
    END IF;
END
$$;

-- The stored next offset of every partition of a connector (those never written are absent).
-- Only the owner of the offsets or an admin may read them.
CREATE OR REPLACE FUNCTION pgque.sink_offsets(i_connector text)
RETURNS TABLE (topic text, kafka_partition int4, next_offset bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.sink_check_owner(i_connector, false);
    RETURN QUERY SELECT o.topic, o.kafka_partition, o.next_offset FROM pgque.sink_offset o
                  WHERE o.connector = i_connector
                  ORDER BY o.topic, o.kafka_partition;
END
$$;

-- Internal: the argument checks both offset writers share, one check with one error for each
-- rule. i_lengths are the lengths of the other arrays that must pair up with i_topics; i_next
-- are the new offsets, where NULL (forget the partition) is allowed only with i_forget.
CREATE OR REPLACE FUNCTION pgque.sink_check_call(i_connector text, i_topics text[], i_partitions int4[],
    i_lengths int[], i_next bigint[], i_forget boolean)
RETURNS int
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_n int := coalesce(cardinality(i_topics), 0);
BEGIN
    IF i_connector IS NULL OR i_connector = '' THEN
        RAISE EXCEPTION 'connector name must not be null or empty' USING ERRCODE = '22023';
    END IF;
    IF coalesce(cardinality(i_partitions), 0) <> v_n OR coalesce(cardinality(i_next), 0) <> v_n
       OR EXISTS (SELECT 1 FROM unnest(i_lengths) AS l WHERE coalesce(l, 0) <> v_n) THEN
        RAISE EXCEPTION 'topics, partitions and offsets must have the same length' USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM unnest(i_topics, i_partitions, i_next) AS u(t, p, n)
                WHERE u.t IS NULL OR u.p IS NULL OR u.p < 0 OR u.n < 0 OR (u.n IS NULL AND NOT i_forget)) THEN
        RAISE EXCEPTION 'topics and partitions must not be null, partitions and offsets not negative%',
            CASE WHEN i_forget THEN '' ELSE ', and offsets not null' END
            USING ERRCODE = '22023';
    END IF;
    IF v_n > 0 AND (SELECT count(DISTINCT (u.t, u.p)) FROM unnest(i_topics, i_partitions) AS u(t, p)) <> v_n THEN
        RAISE EXCEPTION 'each topic partition may appear once' USING ERRCODE = '22023';
    END IF;
    RETURN v_n;
END
$$;

-- Moves each partition from i_expected (the next offset this writer believes is stored; NULL
-- for a partition never written) to i_next, in the caller's transaction. A partition whose
-- stored offset is not the expected one was written by someone else since -- a task that lost
-- the partition in a rebalance and is still writing -- so the whole call fails (SQLSTATE PQ010,
-- fenced: roll back, re-read the offsets, and drop what is already stored). Not 40001: the same
-- transaction again would be refused again, and clients read 40001 as "simply try again".
CREATE OR REPLACE FUNCTION pgque.sink_commit_offsets(i_connector text, i_topics text[], i_partitions int4[],
    i_expected bigint[], i_next bigint[])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_n int := pgque.sink_check_call(i_connector, i_topics, i_partitions, ARRAY[cardinality(i_expected)], i_next, false);
    v_conflict record;
    v_inserted int;
BEGIN
    IF v_n = 0 THEN
        RETURN;
    END IF;
    PERFORM pgque.sink_check_owner(i_connector, true);
    -- Lock the stored rows in a fixed order, so two writers never deadlock on each other.
    PERFORM 1 FROM pgque.sink_offset o
      JOIN unnest(i_topics, i_partitions) AS u(t, p) ON o.topic = u.t AND o.kafka_partition = u.p
     WHERE o.connector = i_connector
     ORDER BY o.topic, o.kafka_partition
       FOR UPDATE OF o;
    SELECT u.t, u.p, o.next_offset AS stored, u.e AS expected INTO v_conflict
      FROM unnest(i_topics, i_partitions, i_expected) AS u(t, p, e)
      LEFT JOIN pgque.sink_offset o ON o.connector = i_connector AND o.topic = u.t AND o.kafka_partition = u.p
     WHERE o.next_offset IS DISTINCT FROM u.e
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'offset of %-% for connector % is % in the database, this writer expected %; another task wrote it',
            v_conflict.t, v_conflict.p, i_connector, coalesce(v_conflict.stored::text, 'absent'),
            coalesce(v_conflict.expected::text, 'absent')
            USING ERRCODE = 'PQ010';
    END IF;
    -- First writes of a partition: a concurrent first write of the same partition makes the
    -- insert wait, then find the row, and insert nothing.
    INSERT INTO pgque.sink_offset (connector, topic, kafka_partition, next_offset)
    SELECT i_connector, u.t, u.p, u.n FROM unnest(i_topics, i_partitions, i_expected, i_next) AS u(t, p, e, n)
     WHERE u.e IS NULL
     ORDER BY u.t, u.p
    ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_inserted = ROW_COUNT;
    IF v_inserted <> (SELECT count(*) FROM unnest(i_expected) AS e WHERE e IS NULL) THEN
        RAISE EXCEPTION 'a partition of connector % was first written by another task at the same time', i_connector
            USING ERRCODE = 'PQ010';
    END IF;
    UPDATE pgque.sink_offset o SET next_offset = u.n, updated_at = now()
      FROM unnest(i_topics, i_partitions, i_expected, i_next) AS u(t, p, e, n)
     WHERE u.e IS NOT NULL AND o.connector = i_connector AND o.topic = u.t AND o.kafka_partition = u.p;
END
$$;

-- Sets or forgets stored offsets on an operator's request (Connect's offsets REST API, which
-- runs only while the connector is stopped, so no task is writing): a NULL i_next forgets the
-- partition, and the sink then starts it from Kafka's offset. Unconditional, unlike
-- sink_commit_offsets. Owner or pgque_admin only. Returns how many partitions were set or
-- forgotten.
CREATE OR REPLACE FUNCTION pgque.sink_set_offsets(i_connector text, i_topics text[], i_partitions int4[],
    i_next bigint[])
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_forgotten int;
    v_set int;
BEGIN
    PERFORM pgque.sink_check_call(i_connector, i_topics, i_partitions, NULL, i_next, true);
    -- Setting an offset writes offsets, and claims an unowned name like a commit; forgetting
    -- them only does not.
    PERFORM pgque.sink_check_owner(i_connector, EXISTS (SELECT 1 FROM unnest(i_next) n WHERE n IS NOT NULL));
    DELETE FROM pgque.sink_offset o
     USING unnest(i_topics, i_partitions, i_next) AS u(t, p, n)
     WHERE u.n IS NULL AND o.connector = i_connector AND o.topic = u.t AND o.kafka_partition = u.p;
    GET DIAGNOSTICS v_forgotten = ROW_COUNT;
    INSERT INTO pgque.sink_offset AS o (connector, topic, kafka_partition, next_offset)
    SELECT i_connector, u.t, u.p, u.n FROM unnest(i_topics, i_partitions, i_next) AS u(t, p, n)
     WHERE u.n IS NOT NULL
     ORDER BY u.t, u.p
    ON CONFLICT (connector, topic, kafka_partition)
    DO UPDATE SET next_offset = excluded.next_offset, updated_at = now();
    GET DIAGNOSTICS v_set = ROW_COUNT;
    RETURN v_forgotten + v_set;
END
$$;

-- Forgets every stored offset of a connector (Connect's offsets reset): each partition then
-- starts from Kafka's offset. Owner or pgque_admin only. Returns how many partitions were
-- forgotten.
CREATE OR REPLACE FUNCTION pgque.sink_reset_offsets(i_connector text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_forgotten int;
BEGIN
    PERFORM pgque.sink_check_call(i_connector, NULL, NULL, NULL, NULL, true);
    PERFORM pgque.sink_check_owner(i_connector, false);
    DELETE FROM pgque.sink_offset WHERE connector = i_connector;
    GET DIAGNOSTICS v_forgotten = ROW_COUNT;
    RETURN v_forgotten;
END
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Observability: PgQ's information functions. Reader role.
--
-- Layer: on top (README.md). Calls any earlier file.

CREATE OR REPLACE FUNCTION pgque.version()
RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT engine_version FROM pgque.engine_info
$$;

CREATE OR REPLACE FUNCTION pgque.get_queue_info(i_queue_name text)
RETURNS TABLE (queue_name text, queue_ntables int4, queue_cur_table int4, queue_rotation_period interval,
               queue_switch_time timestamptz, queue_external_ticker boolean, queue_ticker_paused boolean,
               queue_ticker_max_count int4, queue_ticker_max_lag interval, queue_ticker_idle_period interval,
               ticker_lag interval, ev_per_sec float8, ev_new bigint, last_tick_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT q.queue_name, q.queue_ntables, q.queue_cur_table, q.queue_rotation_period, q.queue_switch_time,
           q.queue_external_ticker, q.queue_ticker_paused, q.queue_ticker_max_count, q.queue_ticker_max_lag,
           q.queue_ticker_idle_period,
           now() - last.tick_time,
           CASE WHEN old.tick_id IS NULL OR last.tick_time = old.tick_time THEN NULL
                ELSE (last.tick_event_seq - old.tick_event_seq)::float8
                     / extract(epoch FROM last.tick_time - old.tick_time)::float8 END,
           greatest(pgque.seq_getval(pgque.event_seq_name(q.queue_id)) - last.tick_event_seq, 0),
           last.tick_id
      FROM pgque.queue q
      LEFT JOIN LATERAL (SELECT * FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id DESC LIMIT 1) last ON true
      LEFT JOIN LATERAL (SELECT * FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id DESC OFFSET 20 LIMIT 1) o20 ON true
      LEFT JOIN LATERAL (SELECT * FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                          ORDER BY t.tick_id ASC LIMIT 1) first ON true
      CROSS JOIN LATERAL (SELECT coalesce(o20.tick_id, first.tick_id) AS tick_id,
                                 coalesce(o20.tick_time, first.tick_time) AS tick_time,
                                 coalesce(o20.tick_event_seq, first.tick_event_seq) AS tick_event_seq) old
     WHERE i_queue_name IS NULL OR q.queue_name = i_queue_name
     ORDER BY q.queue_name
$$;

CREATE OR REPLACE FUNCTION pgque.get_queue_info()
RETURNS TABLE (queue_name text, queue_ntables int4, queue_cur_table int4, queue_rotation_period interval,
               queue_switch_time timestamptz, queue_external_ticker boolean, queue_ticker_paused boolean,
               queue_ticker_max_count int4, queue_ticker_max_lag interval, queue_ticker_idle_period interval,
               ticker_lag interval, ev_per_sec float8, ev_new bigint, last_tick_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_queue_info(NULL::text)
$$;

CREATE OR REPLACE FUNCTION pgque.get_consumer_info(i_queue_name text, i_consumer_name text)
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, next_tick bigint, pending_events bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT q.queue_name, c.co_name, now() - cur.tick_time, now() - s.sub_active, s.sub_last_tick,
           s.sub_batch, s.sub_next_tick,
           greatest(last.tick_event_seq - cur.tick_event_seq, 0)
      FROM pgque.subscription s
      JOIN pgque.queue q ON q.queue_id = s.sub_queue
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      LEFT JOIN pgque.tick cur ON cur.tick_queue = s.sub_queue AND cur.tick_id = s.sub_last_tick
      LEFT JOIN LATERAL (SELECT t.tick_event_seq FROM pgque.tick t WHERE t.tick_queue = s.sub_queue
                          ORDER BY t.tick_id DESC LIMIT 1) last ON true
     WHERE (i_queue_name IS NULL OR q.queue_name = i_queue_name)
       AND (i_consumer_name IS NULL OR c.co_name = i_consumer_name)
     ORDER BY q.queue_name, c.co_name
$$;

CREATE OR REPLACE FUNCTION pgque.get_consumer_info(i_queue_name text)
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, next_tick bigint, pending_events bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_consumer_info(i_queue_name, NULL)
$$;

CREATE OR REPLACE FUNCTION pgque.get_consumer_info()
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, next_tick bigint, pending_events bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_consumer_info(NULL, NULL)
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_info(x_batch_id bigint)
RETURNS TABLE (queue_name text, consumer_name text, batch_start timestamptz, batch_end timestamptz,
               prev_tick_id bigint, tick_id bigint, lag interval, seq_start bigint, seq_end bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT q.queue_name, c.co_name, t1.tick_time, t2.tick_time, t1.tick_id, t2.tick_id,
           now() - t2.tick_time, t1.tick_event_seq, t2.tick_event_seq
      FROM pgque.subscription s
      JOIN pgque.queue q ON q.queue_id = s.sub_queue
      JOIN pgque.consumer c ON c.co_id = s.sub_consumer
      JOIN pgque.tick t1 ON t1.tick_queue = s.sub_queue AND t1.tick_id = s.sub_last_tick
      JOIN pgque.tick t2 ON t2.tick_queue = s.sub_queue AND t2.tick_id = s.sub_next_tick
     WHERE s.sub_batch = x_batch_id
$$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Running the engine from inside the database: pg_cron jobs for the ticker and maintenance,
-- the sub-second ticker loop, a health roll-up, and removal. Plus the small PgQ helpers that
-- PgQ/PgQue scripts call. Admin only unless noted in 90_grants.sql.
--
-- Layer: on top (README.md). Calls any earlier file.

-- PgQ helper: the event table a producer inserting directly must write to now.
CREATE OR REPLACE FUNCTION pgque.current_event_table(x_queue_name text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    q pgque.queue;
BEGIN
    SELECT * INTO q FROM pgque.queue WHERE queue_name = x_queue_name;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'Event queue not found' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ001', DETAIL = format('queue: %s', x_queue_name);
    END IF;
    IF q.queue_disable_insert THEN
        RAISE EXCEPTION 'Writing to queue disabled' USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
            DETAIL = format('Queue %s has disable_insert = true.', x_queue_name);
    END IF;
    RETURN pgque.event_active_table(q.queue_id);
END
$$;

-- PgQ helper: a possibly schema-qualified name quoted for SQL; the first dot separates the
-- schema, which defaults to public.
CREATE OR REPLACE FUNCTION pgque.quote_fqname(i_name text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT CASE WHEN position('.' IN i_name) = 0 THEN 'public.' || quote_ident(i_name)
                ELSE quote_ident(split_part(i_name, '.', 1)) || '.'
                     || quote_ident(substr(i_name, position('.' IN i_name) + 1)) END
$$;

CREATE OR REPLACE FUNCTION pgque.set_tick_period_ms(p_period_ms integer)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    IF p_period_ms IS NULL OR p_period_ms < 1 OR p_period_ms > 1000 OR 1000 % p_period_ms <> 0 THEN
        RAISE EXCEPTION 'tick_period_ms must be an exact divisor of 1000 between 1 and 1000 (got %)', p_period_ms
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = 'For example 1000, 500, 250, 200, 100, 50 or 10.';
    END IF;
    UPDATE pgque.config SET tick_period_ms = p_period_ms;
    RETURN p_period_ms;
END
$$;

-- Calls ticker() every tick_period_ms for one loop window, committing after each call, so each
-- tick is its own transaction and the snapshot is held only briefly. Run by the pg_cron ticker
-- job (or any scheduler) once per window. A procedure with the caller's rights and no SET
-- clause: PostgreSQL allows COMMIT only there. The settings are read afresh every round, so
-- set_tick_period_ms() and stop() take effect within one period.
CREATE OR REPLACE PROCEDURE pgque.ticker_loop()
LANGUAGE plpgsql AS $$
DECLARE
    v_start timestamptz := pg_catalog.clock_timestamp();
    v_period int;
    v_window int;
    v_elapsed float8;
    v_next float8;
BEGIN
    LOOP
        PERFORM pgque.ticker();
        COMMIT;
        SELECT c.tick_period_ms, c.ticker_loop_ms INTO v_period, v_window FROM pgque.config c;
        v_elapsed := pg_catalog.date_part('epoch', pg_catalog.clock_timestamp() - v_start) * 1000;
        v_next := (pg_catalog.floor(v_elapsed / v_period) + 1) * v_period;
        EXIT WHEN v_next >= v_window;
        PERFORM pg_catalog.pg_sleep((v_next - v_elapsed) / 1000.0);
        COMMIT;
    END LOOP;
END
$$;

-- Internal: the pg_cron jobs start() manages, with their commands and their periods where
-- pg_cron can schedule in seconds (1.5 and newer) and where it cannot.
CREATE OR REPLACE FUNCTION pgque.cron_jobs()
RETURNS TABLE (jobname text, command text, every_seconds text, every_minute text)
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    VALUES ('pgque_ticker',       'CALL pgque.ticker_loop()',                      '1 seconds',  '* * * * *'),
           ('pgque_retry',        'SELECT pgque.maint_retry_events()',             '30 seconds', '* * * * *'),
           ('pgque_maint',        'SELECT pgque.maint()',                          '30 seconds', '* * * * *'),
           ('pgque_rotate_step2', 'SELECT pgque.maint_rotate_tables_step2()',      '10 seconds', '* * * * *')
$$;

-- Internal: the installed pg_cron version, or NULL when pg_cron is not installed in this database.
CREATE OR REPLACE FUNCTION pgque.cron_version()
RETURNS text
LANGUAGE sql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'
$$;

-- Schedules the ticker loop, retries and maintenance with pg_cron. Idempotent: a second call
-- updates the jobs. The jobs run as the engine's owner (this function runs with its rights).
CREATE OR REPLACE FUNCTION pgque.start()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_version text := pgque.cron_version();
    v_cron_db text := current_setting('cron.database_name', true);
    v_seconds boolean;
    v_ids bigint[] := '{}';
    j record;
BEGIN
    IF v_version IS NULL THEN
        RAISE EXCEPTION 'pg_cron extension is not installed. PgQue itself works without pg_cron, but pgque.start() schedules cron jobs. Install pg_cron first, or run pgque.ticker() and pgque.maint() manually.'
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000',
                  DETAIL = CASE WHEN v_cron_db IS NOT NULL AND v_cron_db <> current_database()
                                THEN format('pg_cron is loaded but keeps its jobs in database %s (cron.database_name).', v_cron_db)
                                WHEN v_cron_db IS NOT NULL
                                THEN 'pg_cron is loaded and keeps its jobs in this database, but CREATE EXTENSION pg_cron has not been run here.'
                                ELSE 'pg_cron is not loaded by this server.' END,
                  HINT = 'Add pg_cron to shared_preload_libraries, set cron.database_name to this database and run '
                         'CREATE EXTENSION pg_cron; or call pgque.ticker(), pgque.maint_retry_events(), pgque.maint() '
                         'and pgque.maint_rotate_tables_step2() from another scheduler (the source connector''s ticker '
                         'duty does).';
    END IF;
    v_seconds := pgque.version_at_least(v_version, '1.5');
    BEGIN
        FOR j IN SELECT * FROM pgque.cron_jobs() LOOP
            v_ids := v_ids || cron.schedule(j.jobname, CASE WHEN v_seconds THEN j.every_seconds ELSE j.every_minute END,
                                            j.command);
        END LOOP;
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'pgque.start(): the engine''s owner % may not schedule pg_cron jobs: %', current_user, SQLERRM
            USING ERRCODE = '42501', HINT = format('As a superuser: GRANT USAGE ON SCHEMA cron TO %I;', current_user);
    END;
    UPDATE pgque.config SET ticker_loop_ms = CASE WHEN v_seconds THEN 1000 ELSE 60000 END,
                            scheduler = 'pg_cron', scheduler_job_ids = v_ids;
END
$$;

-- Removes the jobs start() scheduled. Safe to call when pg_cron is absent or nothing is
-- scheduled.
CREATE OR REPLACE FUNCTION pgque.stop()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    UPDATE pgque.config SET ticker_loop_ms = 1000;
    UPDATE pgque.config SET scheduler = NULL, scheduler_job_ids = NULL WHERE scheduler = 'pg_cron';
    IF pgque.cron_version() IS NULL THEN
        RETURN;
    END IF;
    PERFORM cron.unschedule(c.jobid)
       FROM cron.job c
      WHERE c.jobname IN (SELECT jobname FROM pgque.cron_jobs()) AND c.username = current_user;
END
$$;

-- Internal: the pg_timetable jobs start_timetable() manages: the pg_cron jobs, at their periods
-- in seconds, in pg_timetable's interval syntax.
CREATE OR REPLACE FUNCTION pgque.timetable_jobs()
RETURNS TABLE (job_name text, job_schedule text, job_command text)
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT j.jobname, '@every ' || j.every_seconds, j.command FROM pgque.cron_jobs() j
$$;

-- Internal: the statements start_timetable() runs to schedule those jobs, and stop_timetable()
-- to remove them (every value a literal, nothing taken from a table).
CREATE OR REPLACE FUNCTION pgque.timetable_schedule_sql()
RETURNS TABLE (job_name text, schedule_sql text, unschedule_sql text)
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT j.job_name,
           format('SELECT timetable.add_job(job_name => %L, job_schedule => %L, job_command => %L, job_kind => %L)',
                  j.job_name, j.job_schedule, j.job_command, 'SQL'),
           format('SELECT timetable.delete_job(%L)', j.job_name)
      FROM pgque.timetable_jobs() j
$$;

-- Internal: refuses unless pg_timetable's schema and API are installed here and trustworthy: the
-- jobs run whatever timetable.add_job() and delete_job() do with the engine owner's rights, so
-- the schema must be owned by a superuser or the engine's owner, and those functions by the
-- schema's owner. i_api names the functions the caller needs, for the message.
CREATE OR REPLACE FUNCTION pgque.timetable_check(i_caller text, i_api text)
RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_timetable_owner oid;
BEGIN
    SELECT nspowner INTO v_timetable_owner FROM pg_namespace WHERE nspname = 'timetable';
    IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable')
                                   AND proname = 'add_job')
                 OR NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable')
                                   AND proname = 'delete_job') THEN
        RAISE EXCEPTION 'pg_timetable schema/API is not installed. pgque.%() schedules the ticker with pg_timetable; install pg_timetable in this database first, or use pgque.start() (pg_cron), or run pgque.ticker() and pgque.maint() manually.',
            i_caller USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:55000';
    END IF;
    IF NOT (SELECT rolsuper FROM pg_roles WHERE oid = v_timetable_owner)
       AND v_timetable_owner <> (SELECT nspowner FROM pg_namespace WHERE nspname = 'pgque') THEN
        RAISE EXCEPTION 'untrusted pg_timetable schema owner: %', v_timetable_owner::regrole USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501',
            DETAIL = 'Schema timetable must be owned by a superuser or by the owner of schema pgque.';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable') AND proname IN ('add_job', 'delete_job')
                  AND proowner <> v_timetable_owner) THEN
        RAISE EXCEPTION 'untrusted pg_timetable API owner: % must be owned by timetable schema owner', i_api
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:42501';
    END IF;
END
$$;

-- Schedules the ticker loop, retries and maintenance with pg_timetable instead of pg_cron.
-- Idempotent: a second call replaces the jobs. i_tick_period_ms, when given, is set as with
-- set_tick_period_ms(). The jobs run as the engine's owner.
CREATE OR REPLACE FUNCTION pgque.start_timetable(i_tick_period_ms integer DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_ids bigint[] := '{}';
    v_id bigint;
    j record;
BEGIN
    IF i_tick_period_ms IS NOT NULL
       AND (i_tick_period_ms < 1 OR i_tick_period_ms > 1000 OR 1000 % i_tick_period_ms <> 0) THEN
        RAISE EXCEPTION 'ticks_per_second must be an exact divisor of 1000 between 1 and 1000 (got %)', i_tick_period_ms
            USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:22023', HINT = 'The tick period in ms, for example 1000, 500, 250, 200, 100, 50 or 10.';
    END IF;
    PERFORM pgque.timetable_check('start_timetable', 'add_job/delete_job');
    FOR j IN SELECT * FROM pgque.timetable_schedule_sql() LOOP
        EXECUTE j.unschedule_sql;
        EXECUTE j.schedule_sql INTO v_id;
        v_ids := v_ids || v_id;
    END LOOP;
    UPDATE pgque.config SET tick_period_ms = coalesce(i_tick_period_ms, tick_period_ms), ticker_loop_ms = 1000,
                            scheduler = 'pg_timetable', scheduler_job_ids = v_ids;
END
$$;

-- Removes the jobs start_timetable() scheduled.
CREATE OR REPLACE FUNCTION pgque.stop_timetable()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pgque.timetable_check('stop_timetable', 'delete_job');
    PERFORM pgque.timetable_stop_jobs();
END
$$;

-- Internal: stop_timetable() without its checks; nothing when pg_timetable is absent (uninstall).
CREATE OR REPLACE FUNCTION pgque.timetable_stop_jobs()
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    j record;
BEGIN
    UPDATE pgque.config SET scheduler = NULL, scheduler_job_ids = NULL, ticker_loop_ms = 1000
     WHERE scheduler = 'pg_timetable';
    IF to_regnamespace('timetable') IS NULL
       OR NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = to_regnamespace('timetable') AND proname = 'delete_job') THEN
        RETURN;
    END IF;
    FOR j IN SELECT * FROM pgque.timetable_schedule_sql() LOOP
        EXECUTE j.unschedule_sql;
    END LOOP;
END
$$;

-- Internal: a dotted version (1.4-1, 1.6.2) compared with a minimum.
CREATE OR REPLACE FUNCTION pgque.version_at_least(i_version text, i_minimum text)
RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT string_to_array(substring(i_version FROM '^[0-9]+(?:\.[0-9]+)*'), '.')::int[]
           >= string_to_array(i_minimum, '.')::int[]
$$;

-- Consumer monitoring: get_consumer_info plus what is waiting in retries and dead letters. Its
-- pending_events leave out the ids a forced tick drew (get_consumer_info's, PgQ's, count them).
CREATE OR REPLACE FUNCTION pgque.consumer_stats()
RETURNS TABLE (queue_name text, consumer_name text, lag interval, last_seen interval, last_tick bigint,
               current_batch bigint, pending_events bigint, retry_events bigint, dead_letters bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT i.queue_name, i.consumer_name, i.lag, i.last_seen, i.last_tick, i.current_batch,
           greatest(i.pending_events
                    - coalesce((SELECT lt.tick_forced_ids - ct.tick_forced_ids
                                  FROM pgque.queue q
                                  JOIN pgque.tick ct ON ct.tick_queue = q.queue_id AND ct.tick_id = i.last_tick
                                  CROSS JOIN LATERAL (SELECT t.tick_forced_ids FROM pgque.tick t WHERE t.tick_queue = q.queue_id
                                                       ORDER BY t.tick_id DESC LIMIT 1) lt
                                 WHERE q.queue_name = i.queue_name), 0), 0),
           (SELECT count(*) FROM pgque.retry_queue r
              JOIN pgque.subscription s ON s.sub_id = r.ev_owner
              JOIN pgque.queue q ON q.queue_id = s.sub_queue
              JOIN pgque.consumer c ON c.co_id = s.sub_consumer
             WHERE q.queue_name = i.queue_name AND c.co_name = i.consumer_name),
           (SELECT count(*) FROM pgque.dead_letter d
              JOIN pgque.queue q ON q.queue_id = d.dl_queue_id
              JOIN pgque.consumer c ON c.co_id = d.dl_consumer_id
             WHERE q.queue_name = i.queue_name AND c.co_name = i.consumer_name)
      FROM pgque.get_consumer_info() i
$$;

-- A health roll-up, one row per component. First PgQue's rows, which scripts parse by component
-- name: postgresql, pgque, scheduler, ticker, maintenance, pg_cron and pg_timetable (when absent),
-- queues and consumers. Then this engine's own: each pg_cron job, 'ticking' (are the queues
-- ticked here fresh), every queue and every consumer. A queue is 'stale' when its last tick is
-- older than twice its idle period (an idle queue is ticked at least once per idle period).
CREATE OR REPLACE FUNCTION pgque.status()
RETURNS TABLE (component text, status text, detail text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_cron text := pgque.cron_version();
    v_timetable boolean := to_regnamespace('timetable') IS NOT NULL;
    v_config pgque.config;
    v_scheduler text;
    v_jobs int := 0;
    j record;
BEGIN
    SELECT * INTO v_config FROM pgque.config;
    IF v_cron IS NOT NULL THEN
        SELECT count(*) INTO v_jobs FROM cron.job c
         WHERE c.jobname = 'pgque_ticker' AND c.username = current_user AND c.active;
    END IF;
    v_scheduler := CASE WHEN v_jobs > 0 THEN 'pg_cron'
                        WHEN v_config.scheduler = 'pg_timetable' AND v_timetable THEN 'pg_timetable'
                        ELSE 'manual' END;

    component := 'postgresql'; status := 'info'; detail := pg_catalog.version(); RETURN NEXT;
    component := 'pgque'; status := 'info'; detail := pgque.version(); RETURN NEXT;
    component := 'scheduler';
    status := v_scheduler;
    detail := CASE v_scheduler
                  WHEN 'manual' THEN format('no scheduler jobs; call pgque.ticker() and pgque.maint() from outside (a connector''s ticker duty does), tick_period_ms=%s',
                                            v_config.tick_period_ms)
                  ELSE format('job ids %s, tick_period_ms=%s', coalesce(array_to_string(v_config.scheduler_job_ids, ','), 'unknown'),
                              v_config.tick_period_ms) END;
    RETURN NEXT;
    component := 'ticker';
    status := CASE WHEN v_scheduler = 'manual' THEN 'stopped' ELSE 'scheduled' END;
    detail := CASE WHEN v_scheduler = 'manual' THEN 'no pgque_ticker job; ticks come from outside, if at all'
                   ELSE format('pgque_ticker via %s: CALL pgque.ticker_loop() every second, a tick check every %s ms',
                               v_scheduler, v_config.tick_period_ms) END;
    RETURN NEXT;
    component := 'maintenance';
    status := CASE WHEN v_scheduler = 'manual' THEN 'stopped' ELSE 'scheduled' END;
    detail := CASE WHEN v_scheduler = 'manual' THEN 'no maintenance jobs; call pgque.maint(), pgque.maint_retry_events() and pgque.maint_rotate_tables_step2() from outside'
                   ELSE format('pgque_retry, pgque_maint and pgque_rotate_step2 via %s', v_scheduler) END;
    RETURN NEXT;
    IF v_cron IS NULL THEN
        component := 'pg_cron'; status := 'unavailable';
        detail := 'pg_cron is not installed in this database; install it and call pgque.start(), or tick from outside';
        RETURN NEXT;
    END IF;
    IF NOT v_timetable THEN
        component := 'pg_timetable'; status := 'unavailable';
        detail := 'schema timetable is not installed; install pg_timetable and call pgque.start_timetable(), or tick from outside';
        RETURN NEXT;
    END IF;
    component := 'queues'; status := 'info'; detail := (SELECT count(*) FROM pgque.queue)::text; RETURN NEXT;
    component := 'consumers'; status := 'info'; detail := (SELECT count(*) FROM pgque.subscription)::text; RETURN NEXT;

    IF v_cron IS NOT NULL THEN
        FOR j IN SELECT cj.jobname, c.schedule, c.command, c.active,
                        (SELECT d.status || ' at ' || d.start_time::text || coalesce(': ' || nullif(d.return_message, ''), '')
                           FROM cron.job_run_details d WHERE d.jobid = c.jobid
                          ORDER BY d.runid DESC LIMIT 1) AS last_run
                   FROM pgque.cron_jobs() cj
                   LEFT JOIN cron.job c ON c.jobname = cj.jobname AND c.username = current_user
                  ORDER BY cj.jobname LOOP
            component := 'job ' || j.jobname;
            status := CASE WHEN j.schedule IS NULL THEN 'not scheduled' WHEN j.active THEN 'active' ELSE 'inactive' END;
            detail := CASE WHEN j.schedule IS NULL THEN NULL
                           ELSE format('%s: %s; last run: %s', j.schedule, j.command, coalesce(j.last_run, 'none yet')) END;
            RETURN NEXT;
        END LOOP;
    END IF;

    RETURN QUERY
    WITH queues AS (
        SELECT i.*, q.queue_ticker_idle_period AS idle,
               (SELECT count(*) FROM pgque.subscription s WHERE s.sub_queue = q.queue_id) AS consumers,
               tb.unticked_events,
               CASE WHEN i.queue_ticker_paused THEN 'paused'
                    WHEN i.queue_external_ticker THEN 'external ticker'
                    WHEN i.ticker_lag IS NULL OR i.ticker_lag > 2 * q.queue_ticker_idle_period THEN 'stale'
                    ELSE 'ok' END AS state
          FROM pgque.get_queue_info() i JOIN pgque.queue q ON q.queue_name = i.queue_name
          CROSS JOIN LATERAL pgque.tick_backlog(q.queue_id) tb
    )
    SELECT 'ticking',
           CASE WHEN NOT EXISTS (SELECT 1 FROM queues WHERE state IN ('ok', 'stale')) THEN 'no queues'
                WHEN EXISTS (SELECT 1 FROM queues WHERE state = 'stale') THEN 'stale'
                ELSE 'ok' END,
           (SELECT format('%s queue(s) ticked here; oldest last tick %s ago (queue %s)', count(*),
                          date_trunc('second', max(ticker_lag)),
                          (array_agg(queue_name ORDER BY ticker_lag DESC NULLS FIRST))[1])
              FROM queues WHERE state IN ('ok', 'stale'))
    UNION ALL
    (SELECT 'queue ' || queue_name, state,
            format('last tick %s ago, %s new event(s), %s consumer(s)',
                   date_trunc('second', ticker_lag), unticked_events, consumers)
       FROM queues ORDER BY queue_name);

    RETURN QUERY
    SELECT 'consumer ' || s.queue_name || '/' || s.consumer_name,
           CASE WHEN s.dead_letters > 0 THEN 'dead letters'
                WHEN s.lag > 2 * q.queue_ticker_idle_period + q.queue_ticker_max_lag AND s.pending_events > 0 THEN 'behind'
                ELSE 'ok' END,
           format('lag %s, last seen %s ago, %s pending event(s), %s retry event(s), %s dead letter(s)',
                  date_trunc('second', s.lag), date_trunc('second', s.last_seen), s.pending_events,
                  s.retry_events, s.dead_letters)
      FROM pgque.consumer_stats() s JOIN pgque.queue q ON q.queue_name = s.queue_name
     ORDER BY s.queue_name, s.consumer_name;
END
$$;

-- PgQ's cursor read of a batch: opens cursor i_cursor_name on the batch's events (optionally
-- filtered by i_extra_where, an SQL condition on the event columns), returns the first
-- i_quick_limit rows and leaves the cursor open for the caller's FETCH and CLOSE (also when those
-- rows were all of them). Admin only and with the caller's rights: the condition is SQL text, so it must
-- never run with the owner's rights.
CREATE OR REPLACE FUNCTION pgque.get_batch_cursor(i_batch_id bigint, i_cursor_name text, i_quick_limit int4,
    i_extra_where text,
    OUT ev_id bigint, OUT ev_time timestamptz, OUT ev_txid bigint, OUT ev_retry int4, OUT ev_type text,
    OUT ev_data text, OUT ev_extra1 text, OUT ev_extra2 text, OUT ev_extra3 text, OUT ev_extra4 text)
RETURNS SETOF record
LANGUAGE plpgsql SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_cursor refcursor := i_cursor_name;
    v_rows int := 0;
BEGIN
    IF i_cursor_name IS NULL OR i_quick_limit IS NULL OR i_quick_limit < 0 THEN
        RAISE EXCEPTION 'cursor name and a quick limit >= 0 are required' USING ERRCODE = '22023';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pgque.subscription WHERE sub_batch = i_batch_id) THEN
        RAISE EXCEPTION 'batch not found: %', i_batch_id USING ERRCODE = 'P0001', CONSTRAINT = 'pgque:PQ003';
    END IF;
    OPEN v_cursor FOR EXECUTE
        'SELECT * FROM pgque.get_batch_events($1)'
        || CASE WHEN nullif(btrim(i_extra_where), '') IS NULL THEN '' ELSE ' WHERE ' || i_extra_where END
        || ' ORDER BY 1'
        USING i_batch_id;
    WHILE v_rows < i_quick_limit LOOP
        FETCH v_cursor INTO ev_id, ev_time, ev_txid, ev_retry, ev_type, ev_data,
                            ev_extra1, ev_extra2, ev_extra3, ev_extra4;
        EXIT WHEN NOT FOUND;
        v_rows := v_rows + 1;
        RETURN NEXT;
    END LOOP;
    -- As in PgQ the cursor stays open, also when these rows were the whole batch: the caller
    -- FETCHes the rest (or nothing) and CLOSEs it.
END
$$;

CREATE OR REPLACE FUNCTION pgque.get_batch_cursor(i_batch_id bigint, i_cursor_name text, i_quick_limit int4,
    OUT ev_id bigint, OUT ev_time timestamptz, OUT ev_txid bigint, OUT ev_retry int4, OUT ev_type text,
    OUT ev_data text, OUT ev_extra1 text, OUT ev_extra2 text, OUT ev_extra3 text, OUT ev_extra4 text)
RETURNS SETOF record
LANGUAGE sql SET search_path = pgque, pg_catalog, pg_temp AS $$
    SELECT * FROM pgque.get_batch_cursor(i_batch_id, i_cursor_name, i_quick_limit, NULL)
$$;

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
-- tables that its cursor's tick does not cover, ticked or not), retry events or dead letters,
-- with what they hold.
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
    pgque.slot_of(text, int),
    pgque.slot_consumer_name(text, int, int),
    pgque.subscribe_partitioned(text, text, int),
    pgque.unsubscribe_partitioned(text, text),
    pgque.subscribe_slot(text, text, int, int),
    pgque.unsubscribe_slot(text, text, int),
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
    pgque.nack_partitioned(text, text, int, int, text, pgque.message, interval, text),
    pgque.dead_letter_partitioned(text, text, int, int, text, bigint, text),
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
        pgque.version()
    TO %I$f$, v_ticker);
    EXECUTE format('GRANT EXECUTE ON PROCEDURE pgque.ticker_loop() TO %I', v_ticker);
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
    pgque.tick_insert(int4),
    pgque.tick_lock(int4),
    -- 50_batch.sql
    pgque.hook_refuse_plain(pgque.subscription, text, text, text),
    pgque.hook_unregister(pgque.subscription, text, text),
    pgque.hook_closed_cursor(text, bigint, bigint),
    pgque.hook_batch_end_cap(int4, text),
    pgque.sub_lock(int4, text),
    pgque.sub_refuse_slot(text, text),
    pgque.batch_refuse_slot(bigint, text),
    pgque.sub_register(text, text, bigint),
    pgque.sub_unregister(text, text),
    pgque.consumer_forget(int4),
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
    pgque.read_ahead_ticks(pgque.subscription, text, bigint, bigint),
    pgque.read_ahead_ticks_after(pgque.subscription, text, bigint, bigint, bigint),
    pgque.read_ahead_plan(text, text, int, int, text, bigint, bigint),
    pgque.read_ahead_plan_after(text, text, int, int, text, bigint, bigint, bigint),
    pgque.read_ahead_queries(text, text, int, int, text, bigint, bigint, bigint, int, int[]),
    pgque.resize_blockers(int4, text),
    pgque.resize_lock(pgque.queue, text),
    pgque.resize_lock_draining(pgque.queue, text),
    -- 65_idem.sql, 75_sink_offsets.sql, 85_lifecycle.sql
    pgque.idem_prepare(text, interval),
    pgque.sink_check_call(text, text[], int4[], int[], bigint[], boolean),
    pgque.sink_check_owner(text, boolean),
    pgque.cron_jobs(),
    pgque.cron_version(),
    pgque.version_at_least(text, text),
    pgque.timetable_jobs(),
    pgque.timetable_schedule_sql(),
    pgque.timetable_check(text, text),
    pgque.timetable_stop_jobs()
    FROM %I$f$, v_admin);

    -- PgQ's bulk insert primitive is the owner's alone (producers use send_batch).
    EXECUTE format('REVOKE ALL ON FUNCTION pgque.insert_event_bulk(text, text, text[]) FROM %I', v_admin);

    -- Removing the engine is for the schema's owner alone.
    EXECUTE format('REVOKE ALL ON FUNCTION pgque.uninstall(), pgque.uninstall(boolean), pgque.uninstall_dependents(),
                    pgque.uninstall_unconsumed() FROM %I', v_admin);
END
$grants$;
--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Layer: bootstrap (README.md): ends the install's one transaction.
COMMIT;
