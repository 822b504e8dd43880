/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

/**
 * How a slot's next batch is read ahead on the installed engine, chosen once from its version as
 * an SQL dialect is. Each release added a read to the one before, so the dialects are ordered:
 * a later one reads everything an earlier one does. A read the engine cannot do comes back empty,
 * and the reader receives its batch the usual way once it is open.
 */
enum AheadDialect {

    /** Before 0.3.0: nothing is read ahead. */
    NONE("0.0.0"),
    /** 0.3.0: the next batch's window ({@code read_ahead_window}), and a page of it through {@code read_ahead_page}. */
    PAGE_FUNCTION("0.3.0"),
    /** 0.3.1: the engine hands out the query over the next batch ({@code read_ahead_query}), which the client runs. */
    QUERY("0.3.1"),
    /** 0.3.3: one scan of a window for several slots ({@code read_ahead_slots_query}). */
    SLOTS_QUERY("0.3.3"),
    /** 0.3.4: also the batch after a batch read ahead ({@code read_ahead_after_query}). */
    AFTER_QUERY("0.3.4"),
    /** 0.4.2: also a slot's first batch, while it has none open. */
    FIRST_QUERY("0.4.2");

    /** The release that brought the dialect. */
    final String since;

    AheadDialect(String since) {
        this.since = since;
    }

    /** Whether anything is read ahead: the next batch's window, at least, for a cursor over it. */
    boolean readsAhead() {
        return this != NONE;
    }

    /**
     * Whether a page can be read ahead: of the batch after open batch {@code batchId} (null: a
     * slot's first batch, none being open), or after the batch read ahead up to {@code afterTick}
     * when that is not null.
     */
    boolean readsPage(Long batchId, Long afterTick) {
        if (afterTick != null) {
            return atLeast(AFTER_QUERY);
        }
        return batchId == null ? atLeast(FIRST_QUERY) : readsAhead();
    }

    /** Whether the engine hands out the queries over a page, rather than returning its rows. */
    boolean handsOutQueries() {
        return atLeast(QUERY);
    }

    /** Whether one scan of a window can read it for several slots. */
    boolean sharesScans() {
        return atLeast(SLOTS_QUERY);
    }

    private boolean atLeast(AheadDialect dialect) {
        return compareTo(dialect) >= 0;
    }
}
