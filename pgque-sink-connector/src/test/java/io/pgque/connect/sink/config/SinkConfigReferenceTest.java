/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.ConfigReference;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * docs/sink-config.md is rendered from the sink's ConfigDef, so the reference cannot drift from
 * the code. This test fails when the committed file differs; rewrite it with
 * {@code ./mvnw -pl pgque-sink-connector -am test -Dtest=SinkConfigReferenceTest -Dsurefire.failIfNoSpecifiedTests=false -Dpgque.docs.write=true}.
 */
class SinkConfigReferenceTest {

    private static final Path FILE = Path.of("..", "docs", "sink-config.md");

    @Test
    void theCommittedReferenceIsRenderedFromTheConfigDef() throws IOException {
        String rendered = ConfigReference.markdown("Sink connector: configuration keys",
                "Rendered from `PgQueSinkConfig` by `SinkConfigReferenceTest`; edit the code, not this file. "
                        + "The guide is [sink.md](sink.md). Kafka Connect's own keys (`tasks.max`, `topics`, "
                        + "`topics.regex`, `errors.*`, converters, transforms) work as usual.",
                PgQueSinkConfig.configDef());
        if (Boolean.getBoolean("pgque.docs.write")) {
            Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "(missing)";
        assertEquals(rendered, committed, FILE.toAbsolutePath().normalize() + " is out of date: rewrite it as this test's javadoc says");
    }
}
