/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.client.SlotConsumer;
import io.pgque.connect.source.metrics.SlotStatusMonitor;
import io.pgque.connect.source.stream.BatchStream;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/** A slot set read by a {@link BatchStream} of its slots, with the {@link SlotStatusMonitor} that samples it. */
public final class PolledSlotSet implements SlotSetReader {

    private static final Logger log = LoggerFactory.getLogger(PolledSlotSet.class);

    private final SlotConsumer consumer;
    private final BatchStream poller;
    private final SlotStatusMonitor monitor;

    public PolledSlotSet(SlotConsumer consumer, BatchStream poller, SlotStatusMonitor monitor) {
        this.consumer = consumer;
        this.poller = poller;
        this.monitor = monitor;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        return poller.poll();
    }

    @Override
    public void tickArrived() {
        poller.tickArrived();
    }

    @Override
    public void hearing(boolean heard) {
        poller.hearing(heard);
    }

    @Override
    public void stop() {
        poller.stop();
    }

    @Override
    public void close(Duration grace) {
        poller.stop();
        poller.close(grace);
        monitor.close();
    }

    @Override
    public void abandon() {
        poller.abandon();
        monitor.close();
    }

    @Override
    public boolean release(int slot) {
        try {
            return consumer.slot(slot).release();
        } catch (RuntimeException e) {
            log.debug("Could not release slot {} of {}: {}", slot, consumer.consumer(), e.getMessage());
            return false;
        }
    }
}
