/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.record;

import io.pgque.connect.common.template.Template;
import org.apache.kafka.connect.errors.DataException;

import java.util.function.Supplier;

/** The target topic of an event, from the {@code topic} template over {@code ${type}}. */
public final class TopicRouter {

    private final Template template;

    public TopicRouter(Template template) {
        this.template = template;
    }

    public String topicOf(String eventType, Supplier<String> where) {
        if (template.isConstant()) {
            return template.source();
        }
        String topic = template.render(placeholder -> eventType);
        if (topic.isEmpty()) {
            throw new DataException("topic template \"" + template.source() + "\" renders an empty topic name for "
                    + where.get() + " (event type is empty)");
        }
        return topic;
    }
}
