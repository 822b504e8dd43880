/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.report;

import io.pgque.quickstart.postgres.SlotLag;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one demo run measured, end to end: input topic → sink → queue → source slots → output topic.
 *
 * @param eventsPlanned  events the run set out to send ({@code --events})
 * @param eventsIn       events Kafka acknowledged on the input topic
 * @param eventsOut      distinct events of this run read from the output topic
 * @param duplicates     extra copies read (at-least-once replays after a failure; 0 normally)
 * @param outOfOrder     events that arrived after a later event of the same tenant
 * @param tenants        tenants whose events arrived
 * @param duration       from the first send to the last event read
 * @param latencyP50Micros median send-to-receive time, -1 when nothing arrived
 * @param latencyP99Micros 99th percentile of the same, -1 when nothing arrived
 * @param slots          lag of each slot of the source's consumer at the end
 * @param warmupEvents   events sent through the pipeline before this run and not measured
 * @param stages         the latency split at the queue, when it could be measured
 * @param machine        how busy the machine was over the run, where it can be read (Linux)
 */
public record Report(int eventsPlanned, long eventsIn, long eventsOut, long duplicates, long outOfOrder,
                     int tenants, Duration duration, long latencyP50Micros, long latencyP99Micros,
                     List<SlotLag> slots, int warmupEvents, Optional<Stages> stages,
                     Optional<MachineLoad> machine) {

    public Report {
        slots = List.copyOf(slots);
    }

    /** Every planned event was acknowledged by Kafka and read back from the output topic. */
    public boolean allArrived() {
        return eventsIn == eventsPlanned && eventsOut == eventsPlanned;
    }

    /** No event of a tenant overtook an earlier one of the same tenant. */
    public boolean orderHeld() {
        return outOfOrder == 0;
    }

    /** Events read per second over the whole run. */
    public double throughput() {
        double seconds = duration.toNanos() / 1e9;
        return seconds <= 0 ? 0 : eventsOut / seconds;
    }

    public boolean ok() {
        return allArrived() && orderHeld();
    }
}
