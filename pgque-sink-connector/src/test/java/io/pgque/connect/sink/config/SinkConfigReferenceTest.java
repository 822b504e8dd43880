package io.pgque.connect.sink.config;

import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

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
        String rendered = render(PgQueSinkConfig.configDef());
        if (Boolean.getBoolean("pgque.docs.write")) {
            Files.writeString(FILE, rendered, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "(missing)";
        assertEquals(rendered, committed, FILE.toAbsolutePath().normalize() + " is out of date: rewrite it as this test's javadoc says");
    }

    private static String render(ConfigDef def) {
        StringBuilder md = new StringBuilder("# Sink connector: configuration keys\n\n")
                .append("Rendered from `PgQueSinkConfig` by `SinkConfigReferenceTest`; edit the code, not this file. ")
                .append("The guide is [sink.md](sink.md). Kafka Connect's own keys (`tasks.max`, `topics`, ")
                .append("`topics.regex`, `errors.*`, converters, transforms) work as usual.\n");
        for (String group : def.groups()) {
            List<ConfigDef.ConfigKey> keys = def.configKeys().values().stream()
                    .filter(key -> group.equals(key.group))
                    .sorted(Comparator.comparingInt(key -> key.orderInGroup))
                    .toList();
            md.append("\n## ").append(group).append("\n\n| key | default | allowed | what it does |\n|---|---|---|---|\n");
            for (ConfigDef.ConfigKey key : keys) {
                md.append("| `").append(key.name).append("` | ").append(defaultOf(key)).append(" | ")
                        .append(cell(key.validator == null ? key.type.name().toLowerCase(Locale.ROOT) : key.validator.toString()))
                        .append(" | ").append(cell(key.documentation)).append(" |\n");
            }
        }
        return md.toString();
    }

    private static String defaultOf(ConfigDef.ConfigKey key) {
        if (!key.hasDefault()) {
            return "required";
        }
        if (key.defaultValue == null) {
            return "none";
        }
        String text = ConfigDef.convertToString(key.defaultValue, key.type);
        return text.isEmpty() ? "empty" : "`" + cell(text) + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
