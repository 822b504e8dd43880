-- PgQue engine for pgque-kafka-connect: the install and upgrade script.
--
-- Assembled by the build from pgque-client/src/main/sql/*.sql in file-name order.
-- Run it with `psql -f pgque.sql` or through io.pgque.client.PgQueInstaller. It runs in one
-- transaction: if any check fails, nothing is changed.
BEGIN;
