/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The task of {@link PlainTableSourceConnector}: each poll() returns the next fetch of the
 * cursor as records, each with its own source offset (the row's id) as a real connector's
 * records have; once the table is read it rests. Its session's application name starts with
 * {@link #SESSIONS} and the connector's name, so a benchmark can wait for it to be gone.
 */
public final class PlainTableSourceTask extends SourceTask {

    static final String URL = "connection.url";
    static final String TABLE = "table";
    static final String TOPIC = "topic";
    static final String HEADERS = "headers";
    static final String SESSIONS = "plain-table-source-";

    private Connection connection;
    private PreparedStatement statement;
    private ResultSet rows;
    private String topic;
    private boolean headers;
    private Map<String, Object> partition;
    private boolean read;

    @Override
    public void start(Map<String, String> props) {
        topic = props.get(TOPIC);
        headers = !"false".equals(props.get(HEADERS));
        String table = props.get(TABLE);
        partition = Map.of(TABLE, table);
        Properties session = new Properties();
        session.setProperty("ApplicationName", SESSIONS + props.get("name"));
        try {
            connection = DriverManager.getConnection(props.get(URL), session);
            // pgjdbc reads through a portal, a fetch at a time, only outside autocommit.
            connection.setAutoCommit(false);
            String quoted;
            try (Statement s = connection.createStatement()) {
                quoted = s.enquoteIdentifier(table, false);
            }
            statement = connection.prepareStatement("select id, type, key, payload from " + quoted + " order by id");
            statement.setFetchSize(PlainTableLoop.FETCH_SIZE);
            rows = statement.executeQuery();
        } catch (SQLException e) {
            stop();
            throw new ConnectException("cannot read table '" + table + "'", e);
        }
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (read) {
            // Nothing will come: Connect calls poll() in a loop, and a null at once would spin.
            Thread.sleep(100);
            return null;
        }
        List<SourceRecord> out = new ArrayList<>(PlainTableLoop.FETCH_SIZE);
        try {
            while (out.size() < PlainTableLoop.FETCH_SIZE && rows.next()) {
                long id = rows.getLong(1);
                String type = rows.getString(2);
                out.add(new SourceRecord(partition, Map.of("id", id), topic, null, Schema.STRING_SCHEMA,
                        rows.getString(3), Schema.STRING_SCHEMA, rows.getString(4), null,
                        headers ? headersOf(id, type) : null));
            }
        } catch (SQLException e) {
            throw new ConnectException("cannot read the table", e);
        }
        if (out.size() < PlainTableLoop.FETCH_SIZE) {
            read = true;
        }
        return out;
    }

    /** The six headers the PgQue connector writes, with the plain loop's values. */
    private static ConnectHeaders headersOf(long id, String type) {
        ConnectHeaders h = new ConnectHeaders();
        h.addLong("pgque.event.id", id);
        h.addString("pgque.event.type", type);
        h.addLong("pgque.batch.id", SourceLoader.batchOf(id));
        h.addInt("pgque.slot", 0);
        h.addLong("pgque.epoch", 1);
        h.addInt("pgque.retry.count", 0);
        return h;
    }

    @Override
    public void stop() {
        try {
            if (connection != null) {
                connection.close();
            }
        } catch (SQLException e) {
            // closing at the end of a run: nothing to give back
        }
    }

    @Override
    public String version() {
        return "bench";
    }
}
