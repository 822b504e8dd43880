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
        -- Names are bounded per login, so no writer can fill the table with names it claims.
        IF (SELECT count(*) FROM pgque.sink_offset_owner WHERE owner_role = session_user) >= 1000 THEN
            RAISE EXCEPTION 'role % already owns the stored offsets of 1000 connector names; connector % may not claim another',
                session_user, i_connector USING ERRCODE = '54000',
                HINT = 'A member of the admin role releases names no connector uses any more (sink_release_connector).';
        END IF;
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

-- Gives the stored offsets of connector name i_connector to login role i_role (admin): before a
-- sink first runs, so that no other writer's first commit takes the name; or from one role to
-- another. Offsets already stored stay. Returns the role that owned the name before (NULL: none).
CREATE OR REPLACE FUNCTION pgque.sink_assign_connector(i_connector text, i_role name)
RETURNS name
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_before name;
BEGIN
    PERFORM pgque.sink_check_call(i_connector, NULL, NULL, NULL, NULL, true);
    IF i_role IS NULL OR NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = i_role) THEN
        RAISE EXCEPTION 'role % does not exist', coalesce(i_role::text, 'NULL') USING ERRCODE = '42704';
    END IF;
    SELECT owner_role INTO v_before FROM pgque.sink_offset_owner WHERE connector = i_connector FOR UPDATE;
    INSERT INTO pgque.sink_offset_owner (connector, owner_role) VALUES (i_connector, i_role)
    ON CONFLICT (connector) DO UPDATE SET owner_role = excluded.owner_role, since = now();
    RETURN v_before;
END
$$;

-- Releases connector name i_connector (admin): its stored offsets and its owner go, and the next
-- writer to commit offsets under the name owns it. For a name squatted by another writer, or one
-- no connector uses any more. Returns how many stored partitions were forgotten.
CREATE OR REPLACE FUNCTION pgque.sink_release_connector(i_connector text)
RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pgque, pg_catalog, pg_temp AS $$
DECLARE
    v_forgotten int := pgque.sink_reset_offsets(i_connector);  -- an admin's call: the owner check passes
BEGIN
    DELETE FROM pgque.sink_offset_owner WHERE connector = i_connector;
    RETURN v_forgotten;
END
$$;
