/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.resize;

import io.pgque.client.ResizeState;
import io.pgque.client.SlotResize;

import java.util.Optional;

/** What a task asks the engine about its consumer's resize: how it stands, and to complete it. */
public interface ResizeProgress {

    /** The consumer's slot sets now; empty when the partitioned consumer is gone. */
    Optional<ResizeState> state();

    /**
     * Completes a resize whose old slots are all at the seal.
     *
     * @return the new slot count
     * @throws io.pgque.client.PgQueException when it cannot be completed (another task did, say)
     */
    int complete();

    /** The engine's answers, through the client. */
    static ResizeProgress of(SlotResize resize) {
        return new ResizeProgress() {
            @Override
            public Optional<ResizeState> state() {
                return resize.state();
            }

            @Override
            public int complete() {
                return resize.complete();
            }
        };
    }
}
