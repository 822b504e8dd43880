/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Makes a plausible stream of file events across many tenants: each tenant creates files,
 * overwrites some, deletes some, and never touches a file it has deleted. The stream is only
 * plausible if read in order per tenant, which is the point of the demo.
 */
public final class LifecycleGenerator {

    private final String run;
    private final Random random;
    private final Tenant[] tenants;

    /** @param seed fixes the sequence, so two runs with the same flags send the same story */
    public LifecycleGenerator(String run, int tenantCount, long seed) {
        this.run = run;
        this.random = new Random(seed);
        this.tenants = new Tenant[tenantCount];
        for (int i = 0; i < tenantCount; i++) {
            tenants[i] = new Tenant(String.format("tenant-%04d", i));
        }
    }

    /** The next event, of a randomly chosen tenant, stamped with {@code sentAtMicros}. */
    public LifecycleEvent next(long sentAtMicros) {
        return tenants[random.nextInt(tenants.length)].next(random, run, sentAtMicros);
    }

    /** One tenant's files and how many events it has sent so far. */
    private static final class Tenant {
        private final String name;
        private final List<String> liveFiles = new ArrayList<>();
        private long seq;
        private int filesCreated;

        Tenant(String name) {
            this.name = name;
        }

        LifecycleEvent next(Random random, String run, long sentAtMicros) {
            double r = random.nextDouble();
            FileEventType type;
            String file;
            if (liveFiles.isEmpty() || r < 0.35) {
                type = FileEventType.FileCreated;
                file = "files/" + (filesCreated++) + ".bin";
                liveFiles.add(file);
            } else if (r < 0.8) {
                type = FileEventType.FileOverwritten;
                file = liveFiles.get(random.nextInt(liveFiles.size()));
            } else {
                type = FileEventType.FileDeleted;
                file = liveFiles.remove(random.nextInt(liveFiles.size()));
            }
            return new LifecycleEvent(run, name, seq++, type, file, sentAtMicros);
        }
    }
}
