/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.engine;

/**
 * The upgrade from engine 0.4.0 as main built it before the engine's files were layered (issue
 * 42): many internal functions were renamed then, and none may be left behind (see
 * {@link EngineUpgrade}).
 */
class UpgradeFrom040IT extends EngineUpgrade {

    @Override
    String oldVersion() {
        return "0.4.0";
    }
}
