--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- PgQue engine for pgque-kafka-connect: the install and upgrade script.
-- pgque-engine-version: @ENGINE_VERSION@
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

-- Whoever runs this script runs it as the engine's owner: every name in it resolves in
-- pg_catalog and pgque alone (pg_temp, the session's own, last), never through the caller's
-- search_path, where anyone who may create a schema named after the installer ("$user") or in
-- public could put a function or operator of an exactly matching signature.
SET LOCAL search_path = pg_catalog, pgque, pg_temp;

-- An upgrade runs beside producers and consumers. The few locks it must take (a table it adds a
-- column to, a view it changes) it waits for at most this long, 5 seconds unless the session sets
-- pgque.install_lock_timeout (PGOPTIONS='-c pgque.install_lock_timeout=30s'): past that the
-- script fails with SQLSTATE 55P03, having changed nothing, and may simply be run again. The
-- locks it holds are held until its commit, so clients wait behind it no longer than the script
-- runs.
SELECT set_config('lock_timeout', coalesce(nullif(current_setting('pgque.install_lock_timeout', true), ''), '5s'), true);

-- The version this script installs, for the guard below and for pgque.version().
SELECT set_config('pgque.install_version', '@ENGINE_VERSION@', true);
SET LOCAL client_min_messages = warning;
