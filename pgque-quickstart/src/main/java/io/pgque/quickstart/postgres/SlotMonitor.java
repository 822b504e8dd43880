/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.postgres;

import io.pgque.client.ConsumerInfo;
import io.pgque.client.PgQue;
import io.pgque.client.SlotStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Reads the per-slot lag of the source's consumer, for the progress lines and the report. */
public final class SlotMonitor {

    private final PgQue pgque;
    private final String queue;
    private final String consumer;
    private final int slots;

    public SlotMonitor(DataSource dataSource, String queue, String consumer, int slots) {
        this.pgque = PgQue.using(dataSource);
        this.queue = queue;
        this.consumer = consumer;
        this.slots = slots;
    }

    /** One entry per slot, by slot number; empty until the source has subscribed its slots. */
    public List<SlotLag> read() {
        // partition_slot_status has the lease; get_consumer_info has the lag, per "consumer#k/N"
        Map<String, Duration> lagBySubscription = new HashMap<>();
        for (ConsumerInfo info : pgque.queues().consumerInfo(queue)) {
            lagBySubscription.put(info.consumerName(), info.lag());
        }
        List<SlotLag> result = new ArrayList<>();
        for (SlotStatus s : pgque.slotConsumer(queue, consumer, slots, "pgque-quickstart").status()) {
            String subscription = consumer + "#" + s.slot() + "/" + s.n();
            long pending = s.pendingEvents() == null ? 0 : s.pendingEvents();
            result.add(new SlotLag(s.slot(), s.leaseOwner(), s.epoch(), pending, lagBySubscription.get(subscription)));
        }
        return result;
    }
}
