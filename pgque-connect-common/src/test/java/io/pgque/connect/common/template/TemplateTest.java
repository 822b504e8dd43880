/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.template;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TemplateTest {

    private static final Set<PlaceholderKind> SINK = EnumSet.of(PlaceholderKind.TOPIC, PlaceholderKind.PARTITION,
            PlaceholderKind.OFFSET, PlaceholderKind.KEY, PlaceholderKind.HEADER);

    private static final PlaceholderValues RECORD = placeholder -> {
        switch (placeholder.kind()) {
            case TOPIC: return "orders";
            case PARTITION: return "3";
            case OFFSET: return "42";
            case KEY: return null;
            case HEADER: return Map.of("trace", "t-1").get(placeholder.headerName());
            default: throw new AssertionError(placeholder);
        }
    };

    @Test
    void rendersCoordinatesAndHeaders() {
        Template template = Template.parse("k", "${topic}/${partition}/${offset} [${header:trace}]", SINK);
        assertEquals("orders/3/42 [t-1]", template.render(RECORD));
        assertFalse(template.isConstant());
        assertTrue(template.uses(PlaceholderKind.HEADER));
        assertFalse(template.uses(PlaceholderKind.KEY));
    }

    @Test
    void nullValuesRenderAsNothing() {
        assertEquals("k=;h=", Template.parse("k", "k=${key};h=${header:absent}", SINK).render(RECORD));
    }

    @Test
    void literalTextIsConstantAndKeepsLoneDollarsAndBraces() {
        Template template = Template.parse("k", "price $5 {x} }", SINK);
        assertTrue(template.isConstant());
        assertEquals("price $5 {x} }", template.render(p -> {
            throw new AssertionError("no placeholder to resolve");
        }));
        assertTrue(Template.parse("k", "", SINK).isEmpty());
    }

    @Test
    void headerNamesMayContainPunctuation() {
        Template template = Template.parse("k", "${header:x-trace.id:v2}", SINK);
        assertEquals("x-trace.id:v2", template.placeholders().get(0).headerName());
        assertEquals("${header:x-trace.id:v2}", template.placeholders().get(0).toString());
    }

    @Test
    void unknownPlaceholderNamesTheKeyAndWhatIsAllowed() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Template.parse("pgque.event.type", "${topik}", SINK));
        assertTrue(e.getMessage().contains("pgque.event.type"), e.getMessage());
        assertTrue(e.getMessage().contains("unknown placeholder ${topik}"), e.getMessage());
        assertTrue(e.getMessage().contains("${topic}, ${partition}, ${offset}, ${key}, ${header:NAME}"),
                e.getMessage());
    }

    @Test
    void knownButDisallowedPlaceholderSaysSo() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Template.parse("topic", "events.${topic}", EnumSet.of(PlaceholderKind.TYPE)));
        assertTrue(e.getMessage().contains("${topic} is not allowed here"), e.getMessage());
        assertTrue(e.getMessage().contains("Allowed here: ${type}"), e.getMessage());
    }

    @Test
    void unclosedPlaceholderIsRejected() {
        ConfigException e = assertThrows(ConfigException.class, () -> Template.parse("pgque.extra3", "a ${topic", SINK));
        assertTrue(e.getMessage().contains("pgque.extra3"), e.getMessage());
        assertTrue(e.getMessage().contains("unclosed '${' at position 2"), e.getMessage());
    }

    @Test
    void emptyPlaceholderAndEmptyHeaderNameAreRejected() {
        assertThrows(ConfigException.class, () -> Template.parse("k", "${}", SINK));
        ConfigException e = assertThrows(ConfigException.class, () -> Template.parse("k", "${header:}", SINK));
        assertTrue(e.getMessage().contains("header name"), e.getMessage());
    }

    @Test
    void nullTextIsRejected() {
        assertThrows(ConfigException.class, () -> Template.parse("k", null, SINK));
    }

    @Test
    void validatorAcceptsWhatParseAccepts() {
        Template.validator(SINK).ensureValid("k", "${topic}-${key}");
        ConfigException e = assertThrows(ConfigException.class,
                () -> Template.validator(SINK).ensureValid("pgque.dedup.key", "${headers}"));
        assertTrue(e.getMessage().contains("pgque.dedup.key"), e.getMessage());
    }

    @Test
    void firstMissingFindsAnEmptyPart() {
        assertNull(Template.parse("k", "${topic}-${offset}", SINK).firstMissing(RECORD));
        assertEquals("${key}", Template.parse("k", "${topic}-${key}", SINK).firstMissing(RECORD).toString());
        assertEquals("${header:nope}",
                Template.parse("k", "${header:nope}", SINK).firstMissing(RECORD).toString());
    }
}
