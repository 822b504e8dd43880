--
-- Copyright 2026 the pgque-kafka-connect authors
-- SPDX-License-Identifier: Apache-2.0
--

-- Three NOLOGIN roles, created once per cluster. Reader and writer are siblings (a producer
-- cannot consume, a consumer cannot produce); admin is a member of both.
DO $roles$
DECLARE
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['pgque_reader', 'pgque_writer', 'pgque_admin'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('CREATE ROLE %I NOLOGIN', r);
        END IF;
    END LOOP;
    -- Grant memberships only when missing: a non-superuser installer may lack ADMIN OPTION on
    -- roles another installation created, and a no-op grant must not fail the install.
    FOREACH r IN ARRAY ARRAY['pgque_reader', 'pgque_writer'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
                        WHERE m.roleid = r::regrole AND m.member = 'pgque_admin'::regrole) THEN
            EXECUTE format('GRANT %I TO pgque_admin', r);
        END IF;
    END LOOP;
    -- An old layout made the writer a member of the reader; siblings only.
    IF EXISTS (SELECT 1 FROM pg_auth_members m
                WHERE m.roleid = 'pgque_reader'::regrole AND m.member = 'pgque_writer'::regrole) THEN
        REVOKE pgque_reader FROM pgque_writer;
    END IF;
END
$roles$;
