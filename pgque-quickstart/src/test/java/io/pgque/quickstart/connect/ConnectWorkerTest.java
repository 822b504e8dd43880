/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectWorkerTest {

    @Test
    void aSingleBrokerGetsOneReplicaAndARealClusterItsDefault() {
        Map<String, String> single = ConnectWorker.properties("127.0.0.1:9092", 8083, true);
        Map<String, String> cluster = ConnectWorker.properties("k1:9092", 8083, false);
        for (String key : new String[] {"config.storage.replication.factor", "offset.storage.replication.factor",
                "status.storage.replication.factor"}) {
            assertEquals("1", single.get(key), key);
            assertEquals("-1", cluster.get(key), key);
        }
    }

    @Test
    void restListensOnLocalhostAndPluginsComeFromServiceManifests() {
        Map<String, String> p = ConnectWorker.properties("127.0.0.1:9092", 18083, true);
        assertEquals("http://127.0.0.1:18083", p.get("listeners"));
        assertEquals("service_load", p.get("plugin.discovery"));
    }
}
