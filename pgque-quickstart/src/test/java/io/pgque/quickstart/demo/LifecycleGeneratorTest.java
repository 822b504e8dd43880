/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LifecycleGeneratorTest {

    @Test
    void eachTenantsStoryMakesSenseInOrder() {
        LifecycleGenerator g = new LifecycleGenerator("r", 20, 1);
        Map<String, Long> nextSeq = new HashMap<>();
        Map<String, Set<String>> live = new HashMap<>();
        Map<String, Set<String>> deleted = new HashMap<>();
        Map<FileEventType, Integer> types = new EnumMap<>(FileEventType.class);
        for (int i = 0; i < 10_000; i++) {
            LifecycleEvent e = g.next(i);
            assertEquals("r", e.run());
            assertEquals(nextSeq.getOrDefault(e.tenant(), 0L), e.seq(), "seq counts up per tenant");
            nextSeq.put(e.tenant(), e.seq() + 1);
            Set<String> files = live.computeIfAbsent(e.tenant(), t -> new HashSet<>());
            Set<String> gone = deleted.computeIfAbsent(e.tenant(), t -> new HashSet<>());
            switch (e.type()) {
                case FileCreated -> assertTrue(files.add(e.file()) && !gone.contains(e.file()), "created once: " + e);
                case FileOverwritten -> assertTrue(files.contains(e.file()), "overwrites a live file: " + e);
                case FileDeleted -> assertTrue(files.remove(e.file()) && gone.add(e.file()), "deletes a live file: " + e);
            }
            types.merge(e.type(), 1, Integer::sum);
        }
        assertEquals(20, nextSeq.size(), "every tenant gets events");
        assertEquals(3, types.size(), "all three event types occur");
    }

    @Test
    void theSameSeedTellsTheSameStory() {
        LifecycleGenerator a = new LifecycleGenerator("r", 5, 42);
        LifecycleGenerator b = new LifecycleGenerator("r", 5, 42);
        for (int i = 0; i < 100; i++) {
            assertEquals(a.next(i), b.next(i));
        }
    }

    @Test
    void eventsSurviveTheirJsonRoundTrip() {
        LifecycleEvent e = new LifecycleEvent("r", "tenant-0001", 7, FileEventType.FileDeleted, "files/3.bin", 1_700_000_000_123_456L);
        assertEquals(e, LifecycleEvent.fromJson(e.toJson()).orElseThrow());
        assertTrue(LifecycleEvent.fromJson("{\"hello\":\"pgque\"}").isEmpty(), "someone else's record");
        assertTrue(LifecycleEvent.fromJson("not json").isEmpty());
        assertTrue(LifecycleEvent.fromJson(null).isEmpty());
    }
}
