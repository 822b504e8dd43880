/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.client;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What the engine installed in the database can do beyond the oldest release a reader may meet,
 * by its version ({@code pgque.version()}, as the installer reads it): a reader that may not
 * install the engine falls back to what an older one offers. Read once per client and kept.
 *
 * @param version             the installed version; empty when the engine has no version() (none is this old any more)
 * @param catchUpWindow       {@code receive_partitioned(..., i_window_events)}: batches of several ticks (0.2.0)
 * @param ahead               how a slot's next batch is read ahead ({@link AheadDialect}, from 0.3.0)
 * @param ackReceive          {@code ack_receive_partitioned}: a slot's ack and its next receive in one call (0.5.0)
 */
record EngineCapabilities(Optional<String> version, boolean catchUpWindow, AheadDialect ahead, boolean ackReceive) {

    private static final Logger log = LoggerFactory.getLogger(EngineCapabilities.class);

    /** What an engine of {@code version} can do; a version that does not parse is taken as the newest. */
    static EngineCapabilities of(Optional<String> version) {
        AheadDialect ahead = AheadDialect.NONE;
        for (AheadDialect dialect : AheadDialect.values()) {
            if (dialect != AheadDialect.NONE && atLeast(version, dialect.since)) {
                ahead = dialect;
            }
        }
        return new EngineCapabilities(version, atLeast(version, "0.2.0"), ahead, atLeast(version, "0.5.0"));
    }

    private static boolean atLeast(Optional<String> version, String release) {
        if (version.isEmpty()) {
            return false;
        }
        try {
            return EngineVersion.compare(version.get(), release) >= 0;
        } catch (IllegalArgumentException unparsable) {
            return true;
        }
    }

    /** The capabilities of the engine a client talks to, read on first use and kept. */
    static final class Known {

        private volatile EngineCapabilities read;

        /** The capabilities, or null before they were read. */
        EngineCapabilities ifRead() {
            return read;
        }

        EngineCapabilities in(Connection c) throws SQLException {
            EngineCapabilities known = read;
            if (known == null) {
                known = of(PgQueInstaller.installedVersion(c));
                if (!known.ahead().readsAhead()) {
                    log.warn("The PgQue engine in this database ({}) predates reading ahead and catching up in larger "
                            + "batches: partitioned consumers read one tick per batch, each once it is open. Install "
                            + "the bundled engine {} to upgrade it.", known.version().orElse("unknown version"),
                            PgQueInstaller.bundledVersion());
                }
                read = known;
            }
            return known;
        }
    }
}
