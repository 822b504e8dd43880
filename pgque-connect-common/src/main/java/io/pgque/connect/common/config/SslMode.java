/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

/**
 * TLS modes of the PostgreSQL JDBC driver, with the same names and meaning as libpq's
 * {@code sslmode}; the label is passed to the driver unchanged.
 */
public enum SslMode {
    DISABLE("disable"),
    ALLOW("allow"),
    PREFER("prefer"),
    REQUIRE("require"),
    VERIFY_CA("verify-ca"),
    VERIFY_FULL("verify-full");

    /** The option helper for {@code connection.ssl.mode}. */
    public static final EnumChoice<SslMode> CHOICE = EnumChoice.of(SslMode.class, SslMode::driverValue);

    private final String driverValue;

    SslMode(String driverValue) {
        this.driverValue = driverValue;
    }

    /** The value of the driver's {@code sslmode} property. */
    public String driverValue() {
        return driverValue;
    }
}
