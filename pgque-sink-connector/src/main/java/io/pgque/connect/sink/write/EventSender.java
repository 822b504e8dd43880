/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.write;

import io.pgque.client.DelayedEvent;
import io.pgque.client.Event;
import io.pgque.client.IdempotentEvent;
import io.pgque.client.PgQue;
import io.pgque.client.SendAtResult;
import io.pgque.client.SendIdemResult;
import io.pgque.connect.sink.convert.EventDraft;
import io.pgque.connect.sink.metrics.SinkEvents;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends one chunk to its queue in one statement, on the caller's connection and inside the
 * caller's transaction: {@code pgque.send_events}, {@code pgque.send_events_at} when an event of
 * the chunk has a due time, or {@code pgque.send_idem_events} when dedup is on. Never one
 * statement per record.
 */
public final class EventSender {

    private final Duration dedupTtl;
    private final SinkEvents metrics;

    /** {@code dedupTtl} null: plain sends; else idempotent sends with that window. */
    public EventSender(Duration dedupTtl) {
        this(dedupTtl, SinkEvents.NONE);
    }

    public EventSender(Duration dedupTtl, SinkEvents metrics) {
        this.dedupTtl = dedupTtl;
        this.metrics = metrics;
    }

    SinkEvents metrics() {
        return metrics;
    }

    /**
     * @throws io.pgque.client.PgQueException when the database refuses; the caller's
     *         transaction (or savepoint) must then be rolled back
     */
    public void send(Connection connection, QueueBatches.Chunk chunk) {
        PgQue tx = PgQue.using(connection);
        if (dedupTtl == null && chunk.events().stream().anyMatch(p -> p.draft().deliverAt() != null)) {
            List<DelayedEvent> events = new ArrayList<>(chunk.events().size());
            for (PendingEvent pending : chunk.events()) {
                events.add(new DelayedEvent(event(pending.draft()), pending.draft().deliverAt()));
            }
            List<SendAtResult> results = tx.producer().sendBatchAt(chunk.queue(), events);
            metrics.eventsHeld((int) results.stream().filter(SendAtResult::held).count());
        } else if (dedupTtl == null) {
            List<Event> events = new ArrayList<>(chunk.events().size());
            for (PendingEvent pending : chunk.events()) {
                events.add(event(pending.draft()));
            }
            tx.producer().sendBatch(chunk.queue(), events);
        } else {
            List<IdempotentEvent> events = new ArrayList<>(chunk.events().size());
            for (PendingEvent pending : chunk.events()) {
                events.add(IdempotentEvent.of(pending.draft().dedupKey(), event(pending.draft())));
            }
            List<SendIdemResult> results = tx.producer().sendIdemBatch(chunk.queue(), events, dedupTtl);
            metrics.dedupHits((int) results.stream().filter(SendIdemResult::deduped).count());
        }
    }

    private static Event event(EventDraft draft) {
        return new Event(draft.type(), draft.payload(), draft.partitionKey(), null, draft.extra3(), draft.extra4());
    }
}
