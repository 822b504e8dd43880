/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.ordered;

import io.pgque.client.PartitionMismatchException;
import io.pgque.client.PgQue;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.source.config.SourceConfigDef;
import io.pgque.connect.source.resize.SlotCountChange;
import io.pgque.connect.source.task.SetupLoop;
import org.apache.kafka.connect.errors.ConnectException;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * What an ordered task makes sure of before it reads: the logical consumer exists with its N
 * slots, all created in one step at one tick so that no slot misses events the others see. Every
 * task does it (the engine serialises installers and pins N race-free). An existing consumer with
 * another N is resized ({@link SlotCountChange}).
 */
public final class ConsumerSetup extends SetupLoop {

    private final String queue;
    private final String consumer;
    private final int slots;

    /**
     * @param attempts tries per {@link #ready} before it reports a retriable failure ({@code connection.attempts})
     * @param backoff  the wait after each failed try ({@code connection.backoff.ms})
     */
    public ConsumerSetup(DataSource dataSource, SchemaInstall install, String queue, String consumer, int slots,
                         int attempts, Duration backoff) {
        super(dataSource, install, queue, attempts, backoff);
        this.queue = queue;
        this.consumer = consumer;
        this.slots = slots;
    }

    @Override
    protected void setUp(DataSource dataSource) {
        try {
            SlotCountChange.apply(PgQue.using(dataSource), queue, consumer, slots);
        } catch (PartitionMismatchException e) {
            throw new ConnectException("Consumer '" + consumer + "' of queue '" + queue + "' cannot be set up "
                    + "or resized to " + SourceConfigDef.SLOTS + "=" + slots + ": " + e.getMessage(), e);
        }
    }

    @Override
    protected ConnectException refusal(RuntimeException e) {
        return new ConnectException("Cannot set up consumer '" + consumer + "' on queue '" + queue + "': "
                + e.getMessage(), e);
    }

    @Override
    protected String what() {
        return "consumer '" + consumer + "' on queue '" + queue + "'";
    }
}
