/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * How a slot's next batch is read ahead on the installed engine, chosen once from its version as
 * an SQL dialect is. Everything read ahead goes through one engine call,
 * {@code read_ahead_after_query} (0.3.4): it names the batch and hands out the queries over its
 * events, for the slot alone or for several slots in one scan, after the open batch or after a
 * batch read ahead, as a page or whole into a cursor. Engines before 0.3.4 are outside the connectors' promise (0.4.0 on):
 * on them nothing is read ahead, and a reader receives each batch once it is open. A read the
 * engine cannot do comes back empty, and the reader receives its batch the usual way.
 */
enum AheadDialect {

    /** Before 0.3.4: nothing is read ahead. */
    NONE("0.0.0"),
    /** 0.3.4: the batch after an open one, or after one read ahead. */
    AFTER_QUERY("0.3.4"),
    /** 0.4.2: also a slot's first batch, while it has none open. */
    FIRST_QUERY("0.4.2");

    /** The release that brought the dialect. */
    final String since;

    AheadDialect(String since) {
        this.since = since;
    }

    /** Whether anything is read ahead. */
    boolean readsAhead() {
        return this != NONE;
    }

    /**
     * Whether a page can be read ahead: of the batch after open batch {@code batchId} (null: a
     * slot's first batch, none being open), or after the batch read ahead up to {@code afterTick}
     * when that is not null.
     */
    boolean readsPage(Long batchId, Long afterTick) {
        if (batchId == null && afterTick == null) {
            return this == FIRST_QUERY;
        }
        return readsAhead();
    }
}
