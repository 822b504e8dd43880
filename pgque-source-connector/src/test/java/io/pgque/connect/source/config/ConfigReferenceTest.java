/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.ConfigReference;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The configuration reference is rendered from {@link SourceConfigDef}, never typed by hand: this
 * test fails when the committed file differs from the rendering. Regenerate it with
 * {@code ./mvnw -pl pgque-source-connector test -Dtest=ConfigReferenceTest -Dpgque.docs.write=true}.
 */
class ConfigReferenceTest {

    private static final Path FILE = Path.of("config-reference.md");

    @Test
    void committedReferenceMatchesTheConfigDef() throws IOException {
        String rendered = ConfigReference.markdown("Source connector: configuration keys",
                "Rendered from `SourceConfigDef` by `ConfigReferenceTest`; edit the code, not this file. "
                        + "The guide is [docs/source.md](../docs/source.md). Kafka Connect's own keys (`tasks.max`, "
                        + "converters, transforms, `topic.creation.*`) work as usual.",
                SourceConfigDef.build());
        if (Boolean.getBoolean("pgque.docs.write")) {
            Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";
        assertEquals(rendered, committed, FILE.toAbsolutePath() + " is out of date; regenerate it with "
                + "-Dpgque.docs.write=true (see this test's javadoc)");
    }
}
