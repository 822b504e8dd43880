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
    -- The installed version, '' for none, for 05_upgrade.sql: how functions are replaced.
    PERFORM set_config('pgque.upgrade_from', '', true);
    IF to_regnamespace('pgque') IS NULL THEN
        RETURN;
    END IF;
    IF to_regclass('pgque.engine_info') IS NULL THEN
        RAISE EXCEPTION 'schema pgque exists but was not created by the pgque-kafka-connect installer; refusing to modify it'
            USING ERRCODE = 'PQ007',
                  HINT = 'Install into a database without a pgque schema, or remove the other installation first.';
    END IF;
    SELECT engine_version INTO v_installed FROM pgque.engine_info;
    PERFORM set_config('pgque.upgrade_from', coalesce(v_installed, ''), true);
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
CALL pg_temp.pgque_add_column('pgque.engine_info', 'role_prefix', 'text');
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
