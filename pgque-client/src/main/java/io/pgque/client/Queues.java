/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Creating, configuring, dropping and inspecting queues. Changing queues needs the
 * {@code pgque_admin} role; the info methods need {@code pgque_reader}.
 */
public final class Queues {

    private static final String QUEUE_INFO_COLUMNS = "queue_name, queue_ntables, queue_cur_table, "
            + Rows.micros("queue_rotation_period") + " as rotation_period_us, queue_switch_time, "
            + "queue_external_ticker, queue_ticker_paused, queue_ticker_max_count, "
            + Rows.micros("queue_ticker_max_lag") + " as max_lag_us, "
            + Rows.micros("queue_ticker_idle_period") + " as idle_period_us, "
            + Rows.micros("ticker_lag") + " as ticker_lag_us, ev_per_sec, ev_new, last_tick_id";
    private static final String CONSUMER_INFO_COLUMNS = "queue_name, consumer_name, "
            + Rows.micros("lag") + " as lag_us, " + Rows.micros("last_seen") + " as last_seen_us, "
            + "last_tick, current_batch, next_tick, pending_events";

    private final Connections db;

    Queues(Connections db) {
        this.db = db;
    }

    /**
     * Creates the queue, ticking it once so consumers can subscribe at once.
     *
     * @return true if created, false if it already existed
     */
    public boolean create(String queue) {
        return db.run("create queue '" + queue + "'",
                c -> Sql.count(c, "select pgque.create_queue(?)", queue) == 1);
    }

    /**
     * Drops the queue and all its events; refuses while consumers are subscribed.
     *
     * @return true if dropped
     */
    public boolean drop(String queue) {
        return drop(queue, false);
    }

    /**
     * Drops the queue and all its events; with {@code force}, unsubscribes its consumers first
     * (their pending events, retries and dead letters are lost).
     */
    public boolean drop(String queue, boolean force) {
        return db.run("drop queue '" + queue + "'",
                c -> Sql.count(c, "select pgque.drop_queue(?, ?)", queue, force) == 1);
    }

    /** Sets a queue parameter by its engine name; a null value resets it to its default. */
    public void setConfig(String queue, String param, String value) {
        db.run("set " + param + " of queue '" + queue + "'",
                c -> Sql.count(c, "select pgque.set_queue_config(?, ?, ?)", queue, param, value));
    }

    /** Sets a queue parameter; a null value resets it to its default. */
    public void setConfig(String queue, QueueParam param, String value) {
        setConfig(queue, Objects.requireNonNull(param, "param").paramName(), value);
    }

    /** Resets a queue parameter to its default. */
    public void resetConfig(String queue, QueueParam param) {
        setConfig(queue, param, null);
    }

    /** A tick is due once this many events wait (fewer, larger batches when higher). */
    public void setTickerMaxCount(String queue, int events) {
        setConfig(queue, QueueParam.TICKER_MAX_COUNT, Integer.toString(events));
    }

    /** A tick is due once events have waited this long: the upper bound on delivery latency from ticking. */
    public void setTickerMaxLag(String queue, Duration lag) {
        setConfig(queue, QueueParam.TICKER_MAX_LAG, Intervals.text(lag));
    }

    /** Longest gap between ticks while nothing is sent (idle ticks let consumers see they are caught up). */
    public void setTickerIdlePeriod(String queue, Duration period) {
        setConfig(queue, QueueParam.TICKER_IDLE_PERIOD, Intervals.text(period));
    }

    /** Pauses or resumes ticking of the queue; while paused, no new batches form. */
    public void setTickerPaused(String queue, boolean paused) {
        setConfig(queue, QueueParam.TICKER_PAUSED, Boolean.toString(paused));
    }

    /** How often event tables rotate; events live about two to three periods once consumed. */
    public void setRotationPeriod(String queue, Duration period) {
        setConfig(queue, QueueParam.ROTATION_PERIOD, Intervals.text(period));
    }

    /** Whether ticks are pushed from outside (then {@code ticker()} refuses the queue). */
    public void setExternalTicker(String queue, boolean external) {
        setConfig(queue, QueueParam.EXTERNAL_TICKER, Boolean.toString(external));
    }

    /** Redeliveries a nacked event gets before it goes to the dead letter table. */
    public void setMaxRetries(String queue, int maxRetries) {
        setConfig(queue, QueueParam.MAX_RETRIES, Integer.toString(maxRetries));
    }

    /** The queue's settings and state, or empty if there is no such queue. */
    public Optional<QueueInfo> info(String queue) {
        return db.run("get info of queue '" + queue + "'", c -> Sql.list(c,
                "select " + QUEUE_INFO_COLUMNS + " from pgque.get_queue_info(?)", Queues::queueInfo,
                queue)).stream().findFirst();
    }

    /** Settings and state of every queue, by name. */
    public List<QueueInfo> infoAll() {
        return db.run("get info of all queues", c -> Sql.list(c,
                "select " + QUEUE_INFO_COLUMNS + " from pgque.get_queue_info() order by queue_name",
                Queues::queueInfo));
    }

    /** The subscription of {@code consumer} to {@code queue}, or empty if it is not subscribed. */
    public Optional<ConsumerInfo> consumerInfo(String queue, String consumer) {
        return db.run("get info of consumer '" + consumer + "' on queue '" + queue + "'",
                c -> Sql.list(c, "select " + CONSUMER_INFO_COLUMNS
                        + " from pgque.get_consumer_info(?, ?)", Queues::consumerInfo, queue, consumer))
                .stream().findFirst();
    }

    /** Every subscription to {@code queue} (partition slots included), by consumer name. */
    public List<ConsumerInfo> consumerInfo(String queue) {
        return db.run("get consumers of queue '" + queue + "'", c -> Sql.list(c, "select "
                + CONSUMER_INFO_COLUMNS + " from pgque.get_consumer_info(?) order by consumer_name",
                Queues::consumerInfo, queue));
    }

    /** Every subscription of every queue. */
    public List<ConsumerInfo> consumerInfoAll() {
        return db.run("get info of all consumers", c -> Sql.list(c, "select " + CONSUMER_INFO_COLUMNS
                + " from pgque.get_consumer_info() order by queue_name, consumer_name",
                Queues::consumerInfo));
    }

    private static QueueInfo queueInfo(ResultSet rs) throws SQLException {
        return new QueueInfo(rs.getString("queue_name"), rs.getInt("queue_ntables"),
                rs.getInt("queue_cur_table"), Rows.duration(rs, "rotation_period_us"),
                Rows.instant(rs, "queue_switch_time"), rs.getBoolean("queue_external_ticker"),
                rs.getBoolean("queue_ticker_paused"), rs.getInt("queue_ticker_max_count"),
                Rows.duration(rs, "max_lag_us"), Rows.duration(rs, "idle_period_us"),
                Rows.duration(rs, "ticker_lag_us"), Rows.nullableDouble(rs, "ev_per_sec"),
                Rows.nullableLong(rs, "ev_new"), Rows.nullableLong(rs, "last_tick_id"));
    }

    private static ConsumerInfo consumerInfo(ResultSet rs) throws SQLException {
        return new ConsumerInfo(rs.getString("queue_name"), rs.getString("consumer_name"),
                Rows.duration(rs, "lag_us"), Rows.duration(rs, "last_seen_us"),
                Rows.nullableLong(rs, "last_tick"), Rows.nullableLong(rs, "current_batch"),
                Rows.nullableLong(rs, "next_tick"), Rows.nullableLong(rs, "pending_events"));
    }
}
