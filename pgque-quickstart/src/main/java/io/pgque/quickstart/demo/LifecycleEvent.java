/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * One demo event, carried as the JSON value of a Kafka record (the tenant is also the record
 * key). It passes through the sink into {@code ev_data} and back out of the source unchanged,
 * so the fields the verifier needs travel inside it.
 *
 * @param run          identifies one quickstart run: a restarted quickstart on old data checks
 *                     only its own events
 * @param tenant       the key; events of one tenant must stay in order
 * @param seq          0, 1, 2, ... per tenant and run: the order the producer sent them in
 * @param type         what happened to the file
 * @param file         the file's path within the tenant
 * @param sentAtMicros wall-clock time of the send, microseconds since the epoch, for latency
 */
public record LifecycleEvent(String run, String tenant, long seq, FileEventType type, String file, long sentAtMicros) {

    private static final ObjectMapper JSON = new ObjectMapper()
            // output records from other tools on the same topic may carry more fields
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + this, e);
        }
    }

    /** The event in {@code json}, or empty if it is not one (a user may write to the topics too). */
    public static Optional<LifecycleEvent> fromJson(String json) {
        if (json == null) {
            return Optional.empty();
        }
        try {
            LifecycleEvent e = JSON.readValue(json, LifecycleEvent.class);
            return e.run() == null || e.tenant() == null ? Optional.empty() : Optional.of(e);
        } catch (JsonProcessingException notAnEvent) {
            return Optional.empty();
        }
    }
}
