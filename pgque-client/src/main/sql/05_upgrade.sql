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
