/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

/** The upgrade from engine 0.3.4, the last release before the trust model of 0.4.0 (see {@link EngineUpgrade}). */
class UpgradeIT extends EngineUpgrade {

    @Override
    String oldVersion() {
        return "0.3.4";
    }
}
