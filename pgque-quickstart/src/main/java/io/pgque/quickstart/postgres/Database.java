/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Where the database is and how to log in: what the connectors' configs and the quickstart's own
 * checks both need.
 *
 * @param jdbcUrl  {@code jdbc:postgresql://...}
 * @param user     database user
 * @param password its password, possibly empty
 */
public record Database(String jdbcUrl, String user, String password) {

    /** The form of URL the quickstart works with: one it can split into the prefix and an address. */
    public static final String URL_PREFIX = "jdbc:postgresql://";

    /** What follows {@code jdbc:postgresql://}: host, port, database and parameters. */
    public String address() {
        if (!jdbcUrl.startsWith(URL_PREFIX)) {
            throw new IllegalStateException("expected a URL of the form " + URL_PREFIX + "host:port/database");
        }
        return jdbcUrl.substring(URL_PREFIX.length());
    }

    /** Unpooled: the quickstart makes a handful of calls, the connectors bring their own pools. */
    public DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(jdbcUrl);
        ds.setUser(user);
        ds.setPassword(password);
        ds.setApplicationName("pgque-quickstart");
        return ds;
    }

    /** Never prints the password. */
    @Override
    public String toString() {
        return "Database[" + jdbcUrl + " as " + user + "]";
    }
}
