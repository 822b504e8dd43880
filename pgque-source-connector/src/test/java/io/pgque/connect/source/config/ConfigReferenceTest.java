package io.pgque.connect.source.config;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

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
        String rendered = render(SourceConfigDef.build());
        if (Boolean.getBoolean("pgque.docs.write")) {
            Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";
        assertEquals(rendered, committed, FILE.toAbsolutePath() + " is out of date; regenerate it with "
                + "-Dpgque.docs.write=true (see this test's javadoc)");
    }

    static String render(ConfigDef def) {
        StringBuilder out = new StringBuilder();
        out.append("# PgQue source connector: configuration reference\n\n")
                .append("Generated from `SourceConfigDef` by `ConfigReferenceTest`; do not edit by hand.\n")
                .append("Kafka Connect's own keys (`tasks.max`, converters, transforms, `topic.creation.*`) work as usual.\n");
        for (String group : def.groups()) {
            List<ConfigDef.ConfigKey> keys = new ArrayList<>();
            for (ConfigDef.ConfigKey key : def.configKeys().values()) {
                if (group.equals(key.group)) {
                    keys.add(key);
                }
            }
            keys.sort(Comparator.comparingInt(k -> k.orderInGroup));
            out.append("\n## ").append(group).append("\n\n")
                    .append("| key | type | default | valid values | importance | description |\n")
                    .append("|---|---|---|---|---|---|\n");
            for (ConfigDef.ConfigKey key : keys) {
                out.append("| `").append(key.name).append("` | ")
                        .append(key.type.name().toLowerCase()).append(" | ")
                        .append(defaultText(key)).append(" | ")
                        .append(cell(key.validator == null ? "" : key.validator.toString())).append(" | ")
                        .append(key.importance.name().toLowerCase()).append(" | ")
                        .append(cell(key.documentation)).append(" |\n");
            }
        }
        return out.toString();
    }

    private static String defaultText(ConfigDef.ConfigKey key) {
        if (!key.hasDefault()) {
            return "(required)";
        }
        if (key.defaultValue == null) {
            return "(not set)";
        }
        String text = ConfigDef.convertToString(key.defaultValue, key.type);
        return text.isEmpty() ? "\"\"" : "`" + text + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
