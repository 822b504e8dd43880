/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.kafka;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates the demo's topics, keeping ones an earlier run (or the user) already made. */
public final class Topics {

    private final Admin admin;

    public Topics(Admin admin) {
        this.admin = admin;
    }

    /**
     * Creates {@code name} with {@code partitions} partitions unless it exists. The replication
     * factor is left to the broker, so this works on the one-node broker and on a real cluster.
     */
    public void ensure(String name, int partitions) throws InterruptedException, ExecutionException {
        if (admin.listTopics().names().get().contains(name)) {
            return;
        }
        try {
            admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty()))).all().get();
        } catch (ExecutionException e) {
            // created concurrently by the worker or another quickstart: just as good
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /** The number of partitions of {@code name}. */
    public int partitions(String name) throws InterruptedException, ExecutionException {
        return admin.describeTopics(Set.of(name)).allTopicNames().get().get(name).partitions().size();
    }
}
