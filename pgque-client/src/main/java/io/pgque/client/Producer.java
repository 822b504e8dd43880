/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Appending events to a queue; needs the {@code pgque_writer} role.
 *
 * <p>Events become visible to consumers only after the sending transaction commits <em>and</em> a
 * later tick covers it, so on a caller-supplied connection nothing is delivered until the
 * caller commits, and a rollback un-sends.
 */
public final class Producer {

    private static final String SEND_EVENTS =
            "select pgque.send_events(?, ?, ?, ?, ?, ?, ?)";
    private static final String SEND_IDEM =
            "select event_id, deduped from pgque.send_idem(?, ?, ?::text, ?, " + Intervals.PARAM + ", ?)";
    private static final String SEND_IDEM_EVENTS = "select ord, event_id, deduped from "
            + "pgque.send_idem_events(?, ?, ?, ?, " + Intervals.PARAM + ", ?, ?, ?) order by ord";
    private static final String SEND_EVENTS_AT = "select ord, event_id, scheduled_id from "
            + "pgque.send_events_at(?, ?::text[]::timestamptz[], ?, ?, ?, ?, ?, ?) order by ord";

    private final Connections db;

    Producer(Connections db) {
        this.db = db;
    }

    /** Sends a payload with the given type; returns the new event's id. */
    public long send(String queue, String type, String payload) {
        return send(queue, Event.of(type, payload));
    }

    /** Sends one event; returns its id. */
    public long send(String queue, Event event) {
        return sendBatch(queue, List.of(event)).get(0);
    }

    /**
     * Sends all events in one round trip and one transaction.
     *
     * @return the event ids, position by position as in {@code events} (ids of one batch are not
     *         necessarily increasing; correlate by position)
     */
    public List<Long> sendBatch(String queue, List<Event> events) {
        List<Event> list = List.copyOf(events);
        if (list.isEmpty()) {
            return List.of();
        }
        return db.run("send " + list.size() + " event(s) to queue '" + queue + "'", c -> {
            Object[] params = {queue, texts(c, list, Event::type), texts(c, list, Event::payload),
                    texts(c, list, Event::partitionKey), texts(c, list, Event::extra2),
                    texts(c, list, Event::extra3), texts(c, list, Event::extra4)};
            Long[] ids = Sql.one(c, SEND_EVENTS, rs -> (Long[]) rs.getArray(1).getArray(), params);
            if (ids == null || ids.length != list.size()) {
                throw new SQLException("send_events returned " + (ids == null ? "NULL" : ids.length + " ids")
                        + " for " + list.size() + " events");
            }
            return List.copyOf(Arrays.asList(ids));
        });
    }

    /**
     * Sends one event unless its idempotency key was already used on this queue within
     * {@code ttl}. Sending the key again inside the window appends nothing and reports the first
     * event's id with {@code deduped = true}; after the window the key is free again. The key's
     * claim is part of the transaction: a rollback frees it.
     *
     * @param ttl how long the key stays claimed; finite and positive
     */
    public SendIdemResult sendIdem(String queue, IdempotentEvent event, Duration ttl) {
        Objects.requireNonNull(event, "event");
        Event e = event.event();
        if (e.extra3() != null || e.extra4() != null) {
            return sendIdemBatch(queue, List.of(event), ttl).get(0);
        }
        double ttlSeconds = Intervals.seconds(ttl);
        return db.run("send event with idempotency key '" + event.idemKey() + "' to queue '" + queue + "'",
                c -> Sql.one(c, SEND_IDEM, Producer::idemResult, queue, e.type(), e.payload(),
                        event.idemKey(), ttlSeconds, e.partitionKey()));
    }

    /**
     * Idempotent sends of many events in one round trip; see {@link #sendIdem}. Within one call
     * a key that repeats is deduplicated against its first occurrence.
     *
     * @return one result per input event, in input order
     */
    public List<SendIdemResult> sendIdemBatch(String queue, List<IdempotentEvent> events, Duration ttl) {
        List<IdempotentEvent> list = List.copyOf(events);
        if (list.isEmpty()) {
            return List.of();
        }
        double ttlSeconds = Intervals.seconds(ttl);
        return db.run("send " + list.size() + " idempotent event(s) to queue '" + queue + "'", c -> {
            Object[] params = {queue, texts(c, list, i -> i.event().type()),
                    texts(c, list, i -> i.event().payload()), texts(c, list, IdempotentEvent::idemKey),
                    ttlSeconds, texts(c, list, i -> i.event().partitionKey()),
                    texts(c, list, i -> i.event().extra3()), texts(c, list, i -> i.event().extra4())};
            List<SendIdemResult> results = new ArrayList<>(list.size());
            List<Integer> ords = new ArrayList<>(list.size());
            Sql.list(c, SEND_IDEM_EVENTS, rs -> {
                ords.add(rs.getInt("ord"));
                results.add(idemResult(rs));
                return null;
            }, params);
            for (int i = 0; i < ords.size(); i++) {
                if (ords.get(i) != i + 1) {
                    throw new SQLException("send_idem_events returned positions " + ords
                            + " for " + list.size() + " events");
                }
            }
            if (results.size() != list.size()) {
                throw new SQLException("send_idem_events returned " + results.size() + " rows for "
                        + list.size() + " events");
            }
            return List.copyOf(results);
        });
    }

    /**
     * Sends one event that must not be delivered before {@code deliverAt}: due then (or null, or
     * past), it is sent at once; else it is held and enters the queue, as a new event, at the first
     * tick after it is due. It takes its place in its key's order then, after the key's events
     * sent before that tick.
     */
    public SendAtResult sendAt(String queue, Event event, Instant deliverAt) {
        return sendBatchAt(queue, List.of(new DelayedEvent(event, deliverAt))).get(0);
    }

    /**
     * {@link #sendAt} for many events in one round trip and one transaction: those due now are
     * sent in input order, the others held in input order.
     *
     * @return one result per input event, in input order
     */
    public List<SendAtResult> sendBatchAt(String queue, List<DelayedEvent> events) {
        List<DelayedEvent> list = List.copyOf(events);
        if (list.isEmpty()) {
            return List.of();
        }
        return db.run("send " + list.size() + " event(s) with due times to queue '" + queue + "'", c -> {
            Object[] params = {queue,
                    texts(c, list, d -> d.deliverAt() == null ? null : d.deliverAt().toString()),
                    texts(c, list, d -> d.event().type()), texts(c, list, d -> d.event().payload()),
                    texts(c, list, d -> d.event().partitionKey()), texts(c, list, d -> d.event().extra2()),
                    texts(c, list, d -> d.event().extra3()), texts(c, list, d -> d.event().extra4())};
            List<SendAtResult> results = Sql.list(c, SEND_EVENTS_AT, rs -> new SendAtResult(
                    optionalLong(rs, "event_id"), optionalLong(rs, "scheduled_id")), params);
            if (results.size() != list.size()) {
                throw new SQLException("send_events_at returned " + results.size() + " rows for "
                        + list.size() + " events");
            }
            return List.copyOf(results);
        });
    }

    private static OptionalLong optionalLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
    }

    private static SendIdemResult idemResult(ResultSet rs) throws SQLException {
        return new SendIdemResult(optionalLong(rs, "event_id"), rs.getBoolean("deduped"));
    }

    private static <E> Array texts(Connection c, List<E> items, Function<E, String> field)
            throws SQLException {
        return Sql.array(c, "text", items, field, String[]::new);
    }
}
