/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

import java.util.Map;

/**
 * A transform for the latency profile: stamps each record with {@link System#nanoTime()} as the
 * worker takes it from the task's {@code poll()}, in header {@value #HEADER}. The worker runs in
 * the benchmark's JVM, so the stamp shares the clock of the send time in the payload.
 */
public final class PolledStamp implements Transformation<SourceRecord> {

    static final String HEADER = "bench.polled";

    @Override
    public SourceRecord apply(SourceRecord record) {
        record.headers().addLong(HEADER, System.nanoTime());
        return record;
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void close() {
    }
}
