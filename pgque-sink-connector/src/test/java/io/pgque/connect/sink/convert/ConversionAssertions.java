/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import org.apache.kafka.connect.sink.SinkRecord;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shorthands for "this record converts to ..." and "this record is rejected because ...". */
final class ConversionAssertions {

    private ConversionAssertions() {
    }

    static EventDraft converted(RecordConverter converter, SinkRecord record) {
        ConversionOutcome outcome = converter.convert(record);
        return assertInstanceOf(ConversionOutcome.Converted.class, outcome, outcome::toString).event();
    }

    static String rejected(RecordConverter converter, SinkRecord record, String reasonPart) {
        ConversionOutcome outcome = converter.convert(record);
        String reason = assertInstanceOf(ConversionOutcome.Rejected.class, outcome, outcome::toString).reason();
        assertTrue(reason.contains(reasonPart), () -> "reason '" + reason + "' should contain '" + reasonPart + "'");
        return reason;
    }
}
