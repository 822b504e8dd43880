/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import io.pgque.client.PgQue;
import io.pgque.client.PgQueInstaller;
import io.pgque.client.SlotStatus;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * Prepares the database before the connectors start: the engine, the demo queue tuned for a
 * live demo, and a check that the slot count still matches what an earlier run pinned.
 */
public final class EngineSetup {

    /**
     * Idle ticks keep each slot's "lag" (age of its last finished tick) meaningful once the demo
     * traffic stops; with the default of one minute a caught-up slot would look a minute behind.
     */
    static final Duration TICKER_IDLE_PERIOD = Duration.ofSeconds(1);

    private final DataSource dataSource;
    private final PgQue pgque;

    public EngineSetup(DataSource dataSource) {
        this.dataSource = dataSource;
        this.pgque = PgQue.using(dataSource);
    }

    /** Installs the bundled engine, or upgrades an older one; returns the version now installed. */
    public String installEngine() {
        new PgQueInstaller(dataSource).installOrUpgrade();
        return pgque.operations().version();
    }

    /**
     * Creates {@code queue} unless it exists. Its tick thresholds stay at the engine's defaults:
     * the source connector's ticker duty ticks every {@code pgque.ticker.interval.ms} while
     * events wait, which is what keeps the demo's latency low.
     */
    public void prepareQueue(String queue) {
        pgque.queues().create(queue);
        pgque.queues().setTickerIdlePeriod(queue, TICKER_IDLE_PERIOD);
    }

    /**
     * N is fixed once a consumer has slots: a different {@code --slots} on an old data directory
     * would make the source connector fail at start. Saying so here names the way out.
     */
    public void checkSlotCount(String queue, String consumer, int slots) {
        List<SlotStatus> existing = pgque.slotConsumer(queue, consumer, slots, "pgque-quickstart").status();
        if (!existing.isEmpty() && existing.get(0).n() != slots) {
            throw new IllegalStateException("consumer '" + consumer + "' of queue '" + queue + "' already has "
                    + existing.get(0).n() + " slots in this database, and the quickstart keeps them: run with --slots="
                    + existing.get(0).n() + ", or start over with a fresh --data-dir");
        }
    }
}
