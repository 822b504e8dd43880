/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.common.version;

import org.junit.jupiter.api.Test;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BuildVersionTest {

    @Test
    void readsTheVersionProperty() {
        assertEquals("1.2.3", BuildVersion.read(BuildVersionTest.class, "good-version.properties"));
    }

    @Test
    void missingOrUnfilteredResourceIsAnError() {
        assertThrows(IllegalStateException.class, () -> BuildVersion.read(BuildVersionTest.class, "absent.properties"));
        assertThrows(IllegalStateException.class,
                () -> BuildVersion.read(BuildVersionTest.class, "unfiltered-version.properties"));
    }

    @Test
    void readLazilyAPackagingMistakeShowsOnlyWhenTheVersionIsAskedFor() {
        Supplier<String> missing = BuildVersion.lazily(BuildVersionTest.class, "absent.properties");
        assertThrows(IllegalStateException.class, missing::get);
        Supplier<String> good = BuildVersion.lazily(BuildVersionTest.class, "good-version.properties");
        assertEquals("1.2.3", good.get());
        assertEquals("1.2.3", good.get());
    }
}
