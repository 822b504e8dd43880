/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.reader;

import io.pgque.client.PgQueException;

/**
 * What a reader had open is no longer its own: a slot's lease was fenced or ran out and was
 * taken, or a silent cooperative member's batch was taken over by a sibling. Nothing of it may be
 * acked; its events come again to whoever reads them now.
 */
public final class LostException extends Exception {

    private static final long serialVersionUID = 1L;

    public LostException(PgQueException cause) {
        super(cause.getMessage(), cause);
    }
}
