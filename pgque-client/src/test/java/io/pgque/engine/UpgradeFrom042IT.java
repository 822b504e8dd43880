/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

/**
 * The upgrade from engine 0.4.2, the last release: a lease it granted (held by its name alone)
 * carries on after the upgrade (see {@link EngineUpgrade}).
 */
class UpgradeFrom042IT extends EngineUpgrade {

    @Override
    String oldVersion() {
        return "0.4.2";
    }
}
