/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.template.Template;
import org.apache.kafka.connect.errors.ConnectException;

import java.util.Map;

/**
 * Picks the queue for a topic: the topic's entry in {@code pgque.queue.map} if any, else
 * {@code pgque.queue} rendered for the topic.
 */
public final class QueueRouting {

    private final Template queue;
    private final Map<String, String> byTopic;

    /** {@code queue} may be the empty template when every topic is in {@code byTopic}. */
    QueueRouting(Template queue, Map<String, String> byTopic) {
        this.queue = queue;
        this.byTopic = byTopic;
    }

    /**
     * The queue for {@code topic}.
     *
     * @throws ConnectException when the configuration gives no valid queue for the topic: a
     *         configuration error that concerns every record of the topic, not a bad record
     */
    public String queueFor(String topic) {
        String mapped = byTopic.get(topic);
        if (mapped != null) {
            return mapped;
        }
        if (queue.isEmpty()) {
            throw new ConnectException("Topic '" + topic + "' has no queue: it is not in "
                    + PgQueSinkConfig.QUEUE_MAP + " and " + PgQueSinkConfig.QUEUE + " is empty");
        }
        String name = queue.render(placeholder -> topic);
        String problem = QueueNames.problem(name);
        if (problem != null) {
            throw new ConnectException("Topic '" + topic + "': " + PgQueSinkConfig.QUEUE + "=" + queue.source()
                    + " gives an invalid queue name: " + problem + ". Map the topic in " + PgQueSinkConfig.QUEUE_MAP + ".");
        }
        return name;
    }

    @Override
    public String toString() {
        return "QueueRouting{queue=" + queue.source() + ", map=" + byTopic + '}';
    }
}
