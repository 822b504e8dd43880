package io.pgque.connect.common.version;

import org.junit.jupiter.api.Test;

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
}
