/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.config;

import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EnumChoiceTest {

    @Test
    void labelsAreLowerCaseNamesUnlessGiven() {
        assertEquals(List.of("at_least_once", "exactly_once"), DeliveryGuarantee.CHOICE.labels());
        assertEquals(List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full"),
                SslMode.CHOICE.labels());
    }

    @Test
    void parsingIgnoresCaseAndSurroundingBlanks() {
        assertEquals(DeliveryGuarantee.EXACTLY_ONCE, DeliveryGuarantee.CHOICE.parse("k", " Exactly_Once "));
        assertEquals(SslMode.VERIFY_FULL, SslMode.CHOICE.parse("k", "VERIFY-FULL"));
    }

    @Test
    void rejectionNamesTheKeyAndTheAllowedValues() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> SchemaInstall.CHOICE.validator().ensureValid("pgque.schema.install", "always"));
        assertTrue(e.getMessage().contains("pgque.schema.install"), e.getMessage());
        assertTrue(e.getMessage().contains("none, if_missing"), e.getMessage());
        assertThrows(ConfigException.class, () -> SchemaInstall.CHOICE.parse("k", null));
    }

    @Test
    void recommenderOffersEveryLabelAndDocsListThem() {
        assertEquals(List.of("none", "if_missing"), SchemaInstall.CHOICE.recommender().validValues("k", Map.of()));
        assertTrue(SchemaInstall.CHOICE.recommender().visible("k", Map.of()));
        assertEquals("Pick one. Allowed values: none, if_missing (case-insensitive).",
                SchemaInstall.CHOICE.document("Pick one."));
    }
}
