/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.convert;

import io.pgque.connect.common.template.Placeholder;
import io.pgque.connect.common.template.Template;
import io.pgque.connect.sink.config.PartitionKeySource;
import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.config.QueueRouting;
import io.pgque.connect.sink.config.TombstoneMode;
import io.pgque.connect.sink.config.ValueEnvelope;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.sink.SinkRecord;

import java.time.Clock;
import java.time.Instant;

/**
 * Turns one {@link SinkRecord} into an {@link EventDraft}, or says precisely why it cannot.
 * Pure logic: no I/O, and no state between records but the envelope's cache of schemas. One
 * instance per task thread.
 */
public final class RecordConverter {

    private final QueueRouting routing;
    private final TombstoneMode tombstones;
    private final PayloadEncoder payload;
    /** Null unless pgque.value.envelope=connect-json. */
    private final ConnectJsonEnvelope envelope;
    private final PartitionKeySource partitionKey;
    private final boolean partitionKeyRequired;
    private final Template eventType;
    private final Template extra3;
    private final Template extra4;
    private final Template dedupKey;
    private final DueTime dueTime;

    public RecordConverter(PgQueSinkConfig config) {
        this(config, Clock.systemUTC());
    }

    /** @param clock the time of writing, for the delay of a record without a timestamp */
    public RecordConverter(PgQueSinkConfig config, Clock clock) {
        this.routing = config.queueRouting();
        this.tombstones = config.tombstones();
        this.payload = new PayloadEncoder(config.payloadFormat());
        this.envelope = config.valueEnvelope() == ValueEnvelope.CONNECT_JSON ? new ConnectJsonEnvelope() : null;
        this.partitionKey = config.partitionKey();
        this.partitionKeyRequired = config.partitionKeyRequired();
        this.eventType = config.eventType();
        this.extra3 = config.extra3();
        this.extra4 = config.extra4();
        this.dedupKey = config.dedupKey();
        this.dueTime = new DueTime(config.delayHeader(), config.delayMs(), clock);
    }

    /**
     * The outcome for {@code record}.
     *
     * @throws org.apache.kafka.connect.errors.ConnectException when the configuration gives no
     *         valid queue for the record's topic: that concerns the whole topic, not this record
     */
    public ConversionOutcome convert(SinkRecord record) {
        String queue = routing.queueFor(record.topic());
        try {
            return convert(record, queue);
        } catch (RecordRejectedException e) {
            return new ConversionOutcome.Rejected(e.getMessage());
        } catch (DataException e) {
            return new ConversionOutcome.Rejected("the value does not match its schema: " + e.getMessage());
        }
    }

    private ConversionOutcome convert(SinkRecord record, String queue) {
        String data = null;
        if (record.value() != null) {
            // An envelope whose payload is null is a tombstone too, as JsonConverter makes it one.
            data = envelope != null ? envelope.payload(record.value())
                    : payload.encode(record.valueSchema(), record.value());
        }
        if (data == null) {
            if (tombstones == TombstoneMode.SKIP) {
                return new ConversionOutcome.Skipped("tombstone (null value) skipped, as "
                        + PgQueSinkConfig.TOMBSTONES + "=skip");
            }
            if (tombstones == TombstoneMode.FAIL) {
                throw new RecordRejectedException("tombstone (null value) refused, as " + PgQueSinkConfig.TOMBSTONES + "=fail");
            }
        } else {
            Nul.check("payload", data);
        }

        RecordPlaceholders values = new RecordPlaceholders(record);
        String key = partitionKey(values);
        Nul.check("partition key", key);
        String type = render("event type", eventType, values);
        String third = render("extra3", extra3, values);
        String fourth = render("extra4", extra4, values);
        String dedup = dedupKey(values);
        Instant due = dueTime.configured() ? dueTime.of(record) : null;
        return new ConversionOutcome.Converted(new EventDraft(queue, type, data, key, dedup, third, fourth, due));
    }

    private String partitionKey(RecordPlaceholders values) {
        String key;
        String source;
        switch (partitionKey.kind()) {
            case RECORD_KEY:
                key = values.keyText();
                source = "the record key is null";
                break;
            case HEADER:
                key = values.headerText(partitionKey.headerName());
                source = "header '" + partitionKey.headerName() + "' is missing or null";
                break;
            default:
                return null;
        }
        if (key == null && partitionKeyRequired) {
            throw new RecordRejectedException("no partition key: " + source + ", and "
                    + PgQueSinkConfig.PARTITION_KEY_REQUIRED + "=true");
        }
        return key;
    }

    // An empty rendering means "no value": the field is stored as NULL.
    private static String render(String field, Template template, RecordPlaceholders values) {
        if (template.isEmpty()) {
            return null;
        }
        String text = template.render(values);
        Nul.check(field, text);
        return text.isEmpty() ? null : text;
    }

    // Unlike the other fields, a dedup key with an empty part is refused: it would be shared by
    // every record that lacks that part, and all but the first of them would be dropped.
    private String dedupKey(RecordPlaceholders values) {
        if (dedupKey.isEmpty()) {
            return null;
        }
        Placeholder missing = dedupKey.firstMissing(values);
        if (missing != null) {
            throw new RecordRejectedException("dedup key: " + missing + " is empty for this record, so "
                    + PgQueSinkConfig.DEDUP_KEY + "=" + dedupKey.source() + " would not identify it");
        }
        String text = dedupKey.render(values);
        Nul.check("dedup key", text);
        return text;
    }
}
