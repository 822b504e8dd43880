/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import java.util.Objects;

/** What became of one record: an event to write, nothing to write, or a bad record. */
public sealed interface ConversionOutcome {

    /** The record becomes this event. */
    record Converted(EventDraft event) implements ConversionOutcome {
        public Converted {
            Objects.requireNonNull(event, "event");
        }
    }

    /** The record is consumed without an event (a tombstone under pgque.tombstones=skip). */
    record Skipped(String reason) implements ConversionOutcome {
    }

    /** A bad record: for the dead letter queue, or to fail the task, per errors.tolerance. */
    record Rejected(String reason) implements ConversionOutcome {
    }
}
