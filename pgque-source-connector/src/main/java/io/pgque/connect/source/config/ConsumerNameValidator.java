/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The engine names slot subscriptions "consumer#k/N", so a '#' in the logical name would make
 * the names ambiguous; the engine refuses it, and so do we, before any database is involved.
 */
final class ConsumerNameValidator implements ConfigDef.Validator {

    static final ConsumerNameValidator INSTANCE = new ConsumerNameValidator();

    private ConsumerNameValidator() {
    }

    @Override
    public void ensureValid(String name, Object value) {
        String text = value == null ? "" : value.toString();
        if (text.indexOf('#') >= 0) {
            throw new ConfigException(name, value, "must not contain '#' (the engine uses it in slot names)");
        }
    }

    @Override
    public String toString() {
        return "a name without '#', or empty for the connector's name";
    }
}
