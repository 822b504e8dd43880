--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Install guard: never touch a pgque schema that another installer created (an upstream PgQue
-- or PgQ install would be broken by ours), and never downgrade.

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
