/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

/**
 * Thrown inside the conversion code when a record cannot become an event; {@link RecordConverter}
 * turns it into a {@link ConversionOutcome.Rejected}. It carries no stack trace: it is an expected
 * outcome on the record path, and the reason text says all there is to say.
 */
final class RecordRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    RecordRejectedException(String reason) {
        super(reason, null, false, false);
    }
}
