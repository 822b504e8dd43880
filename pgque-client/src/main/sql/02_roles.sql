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
