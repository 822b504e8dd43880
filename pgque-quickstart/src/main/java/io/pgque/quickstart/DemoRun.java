/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import io.pgque.quickstart.connect.ConnectRestClient;
import io.pgque.quickstart.connect.ConnectorStatus;
import io.pgque.quickstart.demo.Clock;
import io.pgque.quickstart.demo.DemoProducer;
import io.pgque.quickstart.demo.LifecycleGenerator;
import io.pgque.quickstart.demo.OutputConsumer;
import io.pgque.quickstart.demo.OutputVerifier;
import io.pgque.quickstart.kafka.ConsumerGroupProgress;
import io.pgque.quickstart.machine.CpuTimes;
import io.pgque.quickstart.postgres.SlotLag;
import io.pgque.quickstart.postgres.QueueTimes;
import io.pgque.quickstart.postgres.SlotMonitor;
import io.pgque.quickstart.report.MachineLoad;
import io.pgque.quickstart.report.Progress;
import io.pgque.quickstart.report.Report;
import io.pgque.quickstart.report.Stages;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo itself, once the connectors run: send the events, read them back, print progress
 * while they flow, and measure. Gives up only when nothing moves for a while, so large
 * {@code --events} values are fine.
 */
final class DemoRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoRun.class);
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(2);
    /** No new event sent or read for this long means the pipeline is stuck. */
    private static final Duration STALL_LIMIT = Duration.ofSeconds(60);
    /** The source acks a batch after Kafka has it, so the slots catch up just after the last read. */
    private static final Duration CATCH_UP_LIMIT = Duration.ofSeconds(10);
    /** Fixed, so two runs with the same flags tell the same story. */
    private static final long SEED = 20_240_601L;

    /** Where the demo's events go and how to watch them. */
    record Pipeline(String bootstrapServers, String inputTopic, String outputTopic, int outputPartitions,
                    ConsumerGroupProgress sinkProgress, SlotMonitor slotMonitor, QueueTimes queueTimes,
                    ConnectRestClient rest, List<String> connectors) {
    }

    private final Pipeline pipeline;
    private final int events;
    private final int warmupEvents;
    private final OutputVerifier verifier;
    private final OutputConsumer consumer;
    private final DemoProducer producer;
    private boolean closed;

    /**
     * @param warmupEvents events sent by an earlier run and not measured, for the report
     */
    DemoRun(Pipeline pipeline, int events, int tenants, int rate, int warmupEvents) {
        this.pipeline = pipeline;
        this.events = events;
        this.warmupEvents = warmupEvents;
        String run = Long.toString(System.currentTimeMillis(), 36);
        this.verifier = new OutputVerifier(run);
        this.consumer = new OutputConsumer(pipeline.bootstrapServers(), pipeline.outputTopic(),
                pipeline.outputPartitions(), verifier);
        this.producer = new DemoProducer(pipeline.bootstrapServers(), pipeline.inputTopic(),
                new LifecycleGenerator(run, tenants, SEED), events, rate);
    }

    Report run() throws InterruptedException {
        consumer.start(Duration.ofSeconds(30));
        long sinkBaseline = committedBySink();
        long start = System.nanoTime();
        long startMicros = Clock.nowMicros();
        Optional<CpuTimes> cpuAtStart = CpuTimes.now();
        producer.start();

        long lastMoved = start;
        long lastSeen = -1;
        long nextProgress = start + PROGRESS_EVERY.toNanos();
        while (verifier.snapshot().delivered() < events) {
            checkHealth();
            long now = System.nanoTime();
            long seen = producer.acked() + verifier.snapshot().delivered();
            if (seen != lastSeen) {
                lastSeen = seen;
                lastMoved = now;
            } else if (now - lastMoved > STALL_LIMIT.toNanos()) {
                LOG.warn("Nothing moved for {} s; reporting what arrived.", STALL_LIMIT.toSeconds());
                break;
            }
            if (now - nextProgress >= 0) {
                checkConnectors();
                LOG.info(progress(start, sinkBaseline).line());
                nextProgress += PROGRESS_EVERY.toNanos();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        Optional<MachineLoad> machine = cpuAtStart.flatMap(earlier -> CpuTimes.now()
                .map(now -> now.since(earlier, Runtime.getRuntime().availableProcessors())));
        LOG.info(progress(start, sinkBaseline).line());
        awaitSlotsCaughtUp();
        return report(startMicros, machine);
    }

    /** Fails fast, with the reason, when a demo client or a connector has failed. */
    private void checkHealth() {
        if (producer.failure() != null) {
            throw new IllegalStateException("sending demo events failed", producer.failure());
        }
        if (consumer.failure() != null) {
            throw new IllegalStateException("reading the output topic failed", consumer.failure());
        }
    }

    /** A failed connector or task will not recover by itself; stop waiting and say why. */
    private void checkConnectors() {
        for (String connector : pipeline.connectors()) {
            pipeline.rest().status(connector).flatMap(ConnectorStatus::failure).ifPresent(f -> {
                throw new IllegalStateException(f);
            });
        }
    }

    private Progress progress(long start, long sinkBaseline) {
        long inQueue = committedBySink();
        List<SlotLag> slots = slotsOrEmpty();
        long pending = slots.isEmpty() ? -1 : slots.stream().mapToLong(SlotLag::pendingEvents).max().orElse(0);
        Duration maxLag = slots.stream().map(SlotLag::lag).filter(Objects::nonNull).max(Duration::compareTo).orElse(null);
        return new Progress(Duration.ofNanos(System.nanoTime() - start), producer.acked(),
                inQueue < 0 ? -1 : inQueue - sinkBaseline, verifier.snapshot().delivered(), pending, maxLag);
    }

    private void awaitSlotsCaughtUp() {
        try {
            Await.condition("every slot to ack its last batch", CATCH_UP_LIMIT,
                    () -> slotsOrEmpty().stream().allMatch(s -> s.pendingEvents() == 0));
        } catch (TimeoutException stillBehind) {
            // the report shows which slots are behind; that is the information the user wants
        }
    }

    private Report report(long startMicros, Optional<MachineLoad> machine) {
        OutputVerifier.Snapshot s = verifier.snapshot();
        long endMicros = s.lastReceiveMicros() == 0 ? startMicros : s.lastReceiveMicros();
        return new Report(events, producer.acked(), s.delivered(), s.duplicates(), s.outOfOrder(), s.tenantsSeen(),
                Duration.ofNanos((endMicros - startMicros) * 1000), verifier.latencyPercentile(50),
                verifier.latencyPercentile(99), slotsOrEmpty(), warmupEvents, stages(), machine);
    }

    /** The report goes out without the split when the database cannot say when events were written. */
    private Optional<Stages> stages() {
        try {
            return verifier.deliveries().stages(pipeline.queueTimes()::queuedAt);
        } catch (RuntimeException e) {
            LOG.debug("cannot split the latency at the queue", e);
            return Optional.empty();
        }
    }

    /** The progress line must not die because one measurement is briefly unavailable. */
    private long committedBySink() {
        try {
            return pipeline.sinkProgress().committed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (Exception e) {
            LOG.debug("cannot read the sink's committed offsets", e);
            return -1;
        }
    }

    private List<SlotLag> slotsOrEmpty() {
        try {
            return pipeline.slotMonitor().read();
        } catch (RuntimeException e) {
            LOG.debug("cannot read slot status", e);
            return List.of();
        }
    }

    /** Stops the demo's own clients; the connectors keep running. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        producer.close();
        consumer.close();
    }
}
