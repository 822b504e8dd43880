/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.config;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.ConnectionSettings;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.OptionalRange;
import io.pgque.connect.common.config.SchemaInstall;
import io.pgque.connect.common.template.PlaceholderKind;
import io.pgque.connect.common.template.Template;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The sink's configuration: the key set, declared once as data, and the parsed values the task
 * uses. Rules that involve more than one key live in {@link SinkConfigValidator}.
 */
public final class PgQueSinkConfig extends AbstractConfig {

    public static final String QUEUE = "pgque.queue";
    public static final String QUEUE_MAP = "pgque.queue.map";
    public static final String QUEUE_AUTO_CREATE = "pgque.queue.auto.create";
    public static final String EVENT_TYPE = "pgque.event.type";
    public static final String PAYLOAD_FORMAT = "pgque.payload.format";
    public static final String VALUE_ENVELOPE = "pgque.value.envelope";
    public static final String PARTITION_KEY = "pgque.partition.key";
    public static final String PARTITION_KEY_REQUIRED = "pgque.partition.key.required";
    public static final String EXTRA3 = "pgque.extra3";
    public static final String EXTRA4 = "pgque.extra4";
    public static final String TOMBSTONES = "pgque.tombstones";
    public static final String DEDUP_KEY = "pgque.dedup.key";
    public static final String DEDUP_TTL_MS = "pgque.dedup.ttl.ms";
    public static final String RETRY_MAX = "pgque.retry.max";
    public static final String RETRY_BACKOFF_MS = "pgque.retry.backoff.ms";
    public static final String BATCH_MAX_RECORDS = "pgque.batch.max.records";
    public static final String DELAY_HEADER = "pgque.delay.header";
    public static final String DELAY_MS = "pgque.delay.ms";

    /** Placeholders a queue name may use; only the topic, so a topic always maps to one queue. */
    public static final Set<PlaceholderKind> QUEUE_PLACEHOLDERS = EnumSet.of(PlaceholderKind.TOPIC);
    /** Placeholders of the per-record templates (event type, dedup key). */
    public static final Set<PlaceholderKind> RECORD_PLACEHOLDERS = EnumSet.of(PlaceholderKind.TOPIC,
            PlaceholderKind.PARTITION, PlaceholderKind.OFFSET, PlaceholderKind.KEY, PlaceholderKind.HEADER);
    /** The extra fields may also carry every header at once, as JSON. */
    public static final Set<PlaceholderKind> EXTRA_PLACEHOLDERS = EnumSet.of(PlaceholderKind.TOPIC,
            PlaceholderKind.PARTITION, PlaceholderKind.OFFSET, PlaceholderKind.KEY, PlaceholderKind.HEADER,
            PlaceholderKind.HEADERS);

    /** A dedup window longer than this keeps too many keys in the database to be a sane setting. */
    public static final long DEDUP_TTL_MS_MAX = 30L * 24 * 60 * 60 * 1000;
    /** A fixed delay of more than a year is a mistake in units, not a retry pipeline. */
    public static final long DELAY_MS_MAX = 365L * 24 * 60 * 60 * 1000;

    private static final String ROUTING_GROUP = "Routing";
    private static final String EVENT_GROUP = "Event";
    private static final String DEDUP_GROUP = "Dedup";
    private static final String DELAY_GROUP = "Delayed delivery";
    private static final String WRITE_GROUP = "Writing";

    private static final ConfigDef CONFIG_DEF = define();

    private final ConnectionSettings connection;
    private final QueueRouting queueRouting;
    private final Template eventType;
    private final PayloadFormat payloadFormat;
    private final ValueEnvelope valueEnvelope;
    private final PartitionKeySource partitionKey;
    private final Template extra3;
    private final Template extra4;
    private final TombstoneMode tombstones;
    private final Template dedupKey;

    /**
     * Parses and checks {@code props}.
     *
     * @throws ConfigException naming the key at fault, for single-key and cross-field errors alike
     */
    public PgQueSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        Map<String, List<String>> errors = SinkConfigValidator.check(values(), Set.of(), props);
        if (!errors.isEmpty()) {
            throw new ConfigException(errors.values().stream().flatMap(List::stream).collect(Collectors.joining("; ")));
        }
        this.connection = ConnectionSettings.from(this);
        this.queueRouting = new QueueRouting(Template.parse(QUEUE, getString(QUEUE), QUEUE_PLACEHOLDERS),
                QueueMap.parse(QUEUE_MAP, getList(QUEUE_MAP)));
        this.eventType = Template.parse(EVENT_TYPE, getString(EVENT_TYPE), RECORD_PLACEHOLDERS);
        this.payloadFormat = PayloadFormat.CHOICE.parse(PAYLOAD_FORMAT, getString(PAYLOAD_FORMAT));
        this.valueEnvelope = ValueEnvelope.CHOICE.parse(VALUE_ENVELOPE, getString(VALUE_ENVELOPE));
        this.partitionKey = PartitionKeySource.parse(PARTITION_KEY, getString(PARTITION_KEY));
        this.extra3 = Template.parse(EXTRA3, getString(EXTRA3), EXTRA_PLACEHOLDERS);
        this.extra4 = Template.parse(EXTRA4, getString(EXTRA4), EXTRA_PLACEHOLDERS);
        this.tombstones = TombstoneMode.CHOICE.parse(TOMBSTONES, getString(TOMBSTONES));
        this.dedupKey = Template.parse(DEDUP_KEY, getString(DEDUP_KEY), RECORD_PLACEHOLDERS);
    }

    /** The key set, for {@code Connector.config()} and for generated documentation. */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG_DEF);
    }

    private static ConfigDef define() {
        ConfigDef def = new ConfigDef();
        ConnectionConfigDef.addTo(def);
        EngineConfigDef.addTo(def, "at_least_once: events are committed before Kafka offsets, so a failure "
                + "may write a suffix of records twice. exactly_once: the next Kafka offset of each partition is "
                + "stored in PostgreSQL (pgque.sink_offsets, keyed by the connector's name) in the same transaction "
                + "as the events; tasks resume from there and drop records already stored, so each record is "
                + "written once. Needs EXECUTE on pgque.sink_offsets and pgque.sink_commit_offsets (pgque_writer).");

        int routing = 0;
        def.define(QUEUE, Type.STRING, "", new QueueTemplateValidator(), Importance.HIGH,
                "The queue events go to: a fixed name, or a template over ${topic} (e.g. kafka_${topic}). "
                        + "Topics listed in " + QUEUE_MAP + " go where the map says. Required unless the map "
                        + "covers every topic of the connector.",
                ROUTING_GROUP, ++routing, Width.MEDIUM, "Queue");
        def.define(QUEUE_MAP, Type.LIST, "", QueueMap.validator(), Importance.MEDIUM,
                "Per-topic queues, as topicA:queue1,topicB:queue2. Overrides " + QUEUE + " for the listed topics.",
                ROUTING_GROUP, ++routing, Width.LONG, "Queue per topic");
        def.define(QUEUE_AUTO_CREATE, Type.BOOLEAN, false, Importance.MEDIUM,
                "Create a queue that does not exist yet (needs the pgque_admin role). When false, a missing "
                        + "queue is an error.",
                ROUTING_GROUP, ++routing, Width.SHORT, "Create missing queues");

        int event = 0;
        def.define(EVENT_TYPE, Type.STRING, "${topic}", Template.validator(RECORD_PLACEHOLDERS), Importance.MEDIUM,
                "Template for the event type (ev_type): literal text with " + PlaceholderKind.describe(RECORD_PLACEHOLDERS)
                        + ". An empty result is stored as NULL.",
                EVENT_GROUP, ++event, Width.MEDIUM, "Event type");
        def.define(PAYLOAD_FORMAT, Type.STRING, PayloadFormat.CHOICE.label(PayloadFormat.JSON),
                PayloadFormat.CHOICE.validator(), Importance.MEDIUM,
                PayloadFormat.CHOICE.document("How the record value becomes ev_data. json: Struct, Map and List "
                        + "values as JSON; String or bytes values must already be JSON (bytes as UTF-8). string: "
                        + "text as is, bytes decoded as UTF-8, structured values as JSON. base64: the value's bytes "
                        + "in base64 (a String's UTF-8 bytes, a structured value's JSON)."),
                EVENT_GROUP, ++event, Width.SHORT, "Payload format", PayloadFormat.CHOICE.recommender());
        def.define(VALUE_ENVELOPE, Type.STRING, ValueEnvelope.CHOICE.label(ValueEnvelope.NONE),
                ValueEnvelope.CHOICE.validator(), Importance.MEDIUM,
                ValueEnvelope.CHOICE.document("none: the value is the payload, as the converter made it. "
                        + "connect-json: the value is JsonConverter's {\"schema\": ..., \"payload\": ...} envelope "
                        + "(schemas.enable=true), read as bytes or text with value.converter=ByteArrayConverter or "
                        + "StringConverter; the sink stores the payload as JSON, the same text as JsonConverter with "
                        + PAYLOAD_FORMAT + "=json would give, without building a Struct. Needs " + PAYLOAD_FORMAT
                        + "=json. A value that is not such an envelope, or whose payload does not match its "
                        + "schema, is a bad record."),
                EVENT_GROUP, ++event, Width.SHORT, "Value envelope", ValueEnvelope.CHOICE.recommender());
        def.define(PARTITION_KEY, Type.STRING, PartitionKeySource.RECORD_KEY, PartitionKeySource.validator(),
                Importance.HIGH,
                "Where the event's partition key (ev_extra1) comes from: record_key (the record key as text: "
                        + "strings as is, numbers in decimal, Struct/Map as canonical JSON with sorted keys, bytes "
                        + "in base64), header:NAME (that header's value, converted the same way), or none.",
                EVENT_GROUP, ++event, Width.MEDIUM, "Partition key", PartitionKeySource.recommender());
        def.define(PARTITION_KEY_REQUIRED, Type.BOOLEAN, false, Importance.MEDIUM,
                "When true, a record that has no partition key (null key, or missing header) is a bad record: "
                        + "it goes to the dead letter queue, or fails the task, per errors.tolerance. When false "
                        + "such a record is written with a NULL partition key.",
                EVENT_GROUP, ++event, Width.SHORT, "Require partition key");
        def.define(EXTRA3, Type.STRING, "", Template.validator(EXTRA_PLACEHOLDERS), Importance.LOW,
                "Template for ev_extra3, with " + PlaceholderKind.describe(EXTRA_PLACEHOLDERS)
                        + " (${headers}: every header as one JSON object). Empty: NULL.",
                EVENT_GROUP, ++event, Width.MEDIUM, "Extra field 3");
        def.define(EXTRA4, Type.STRING, "", Template.validator(EXTRA_PLACEHOLDERS), Importance.LOW,
                "Template for ev_extra4, like " + EXTRA3 + ".",
                EVENT_GROUP, ++event, Width.MEDIUM, "Extra field 4");
        def.define(TOMBSTONES, Type.STRING, TombstoneMode.CHOICE.label(TombstoneMode.SKIP),
                TombstoneMode.CHOICE.validator(), Importance.MEDIUM,
                TombstoneMode.CHOICE.document("Records with a null value: skip them, send an event with NULL "
                        + "ev_data, or fail (a bad record: dead letter queue or task failure per errors.tolerance)."),
                EVENT_GROUP, ++event, Width.SHORT, "Tombstones", TombstoneMode.CHOICE.recommender());

        def.define(DEDUP_KEY, Type.STRING, "", Template.validator(RECORD_PLACEHOLDERS), Importance.MEDIUM,
                "Template for a dedup key (stored in ev_extra2); empty turns dedup off. An event whose key was "
                        + "already sent to the same queue within " + DEDUP_TTL_MS + " is dropped, whoever sent "
                        + "the first one: the key's scope is the queue, not this connector or topic. So ${key} "
                        + "alone would drop the second update of an entity inside the window; build the key from "
                        + "what identifies one event (e.g. an event-id header, or ${topic}-${partition}-${offset}). "
                        + "A record for which a placeholder of this key is empty is a bad record.",
                DEDUP_GROUP, 1, Width.MEDIUM, "Dedup key");
        def.define(DEDUP_TTL_MS, Type.LONG, null, OptionalRange.between(1, DEDUP_TTL_MS_MAX), Importance.MEDIUM,
                "The dedup window in milliseconds; required when " + DEDUP_KEY + " is set. At most "
                        + DEDUP_TTL_MS_MAX + " (30 days).",
                DEDUP_GROUP, 2, Width.SHORT, "Dedup window (ms)");

        def.define(DELAY_HEADER, Type.STRING, "", Importance.MEDIUM,
                "The name of a header that says when the record's event may be delivered: epoch milliseconds "
                        + "(1767225600000) or ISO-8601 text with a time zone (2026-01-01T00:00:00Z). The event is "
                        + "held in PgQue until then and enters its queue, after the events of its key sent before, "
                        + "at the first tick after that time; a time now or past sends it at once. A record without "
                        + "the header (or with a null value) waits " + DELAY_MS + "; a header that names no time "
                        + "makes it a bad record (dead letter queue or task failure, per errors.tolerance). Empty: "
                        + "no header is read. Cannot be combined with " + DEDUP_KEY + ".",
                DELAY_GROUP, 1, Width.MEDIUM, "Delay header");
        def.define(DELAY_MS, Type.LONG, 0L, Range.between(0L, DELAY_MS_MAX), Importance.MEDIUM,
                "Hold each record's event until this many milliseconds after the record's timestamp (after "
                        + "its writing, for a record without one), as a retry topic of a retry-topic pipeline "
                        + "needs; a record whose " + DELAY_HEADER + " names a time waits for that time instead. "
                        + "0: no delay. At most " + DELAY_MS_MAX + " (365 days). Cannot be combined with "
                        + DEDUP_KEY + ".",
                DELAY_GROUP, 2, Width.SHORT, "Delay (ms)");

        int write = 0;
        def.define(BATCH_MAX_RECORDS, Type.INT, 500, Range.between(1, 100_000), Importance.LOW,
                "Most events sent to the database in one statement. A larger put is split into several "
                        + "statements, all in the put's one transaction.",
                WRITE_GROUP, ++write, Width.SHORT, "Batch size");
        def.define(RETRY_MAX, Type.INT, 10, Range.between(0, 1_000), Importance.LOW,
                "How often a put's transaction is retried after a transient database error (connection lost "
                        + "mid-transaction, serialization failure, deadlock, server shutting down or starting up) before "
                        + "the task hands the records back to the worker, which redelivers them after "
                        + RETRY_BACKOFF_MS + ". Failing to get a connection at all counts against connection.attempts.",
                WRITE_GROUP, ++write, Width.SHORT, "Write retries");
        def.define(RETRY_BACKOFF_MS, Type.LONG, 1_000L, Range.between(0L, 600_000L), Importance.LOW,
                "Wait between two write retries, in milliseconds.",
                WRITE_GROUP, ++write, Width.SHORT, "Write retry backoff (ms)");
        return def;
    }

    public ConnectionSettings connection() {
        return connection;
    }

    public SchemaInstall schemaInstall() {
        return SchemaInstall.CHOICE.parse(EngineConfigDef.SCHEMA_INSTALL, getString(EngineConfigDef.SCHEMA_INSTALL));
    }

    public DeliveryGuarantee deliveryGuarantee() {
        return DeliveryGuarantee.CHOICE.parse(EngineConfigDef.DELIVERY_GUARANTEE,
                getString(EngineConfigDef.DELIVERY_GUARANTEE));
    }

    public QueueRouting queueRouting() {
        return queueRouting;
    }

    public boolean queueAutoCreate() {
        return getBoolean(QUEUE_AUTO_CREATE);
    }

    public Template eventType() {
        return eventType;
    }

    public PayloadFormat payloadFormat() {
        return payloadFormat;
    }

    public ValueEnvelope valueEnvelope() {
        return valueEnvelope;
    }

    public PartitionKeySource partitionKey() {
        return partitionKey;
    }

    public boolean partitionKeyRequired() {
        return getBoolean(PARTITION_KEY_REQUIRED);
    }

    public Template extra3() {
        return extra3;
    }

    public Template extra4() {
        return extra4;
    }

    public TombstoneMode tombstones() {
        return tombstones;
    }

    /** The dedup key template; {@link Template#isEmpty()} means dedup is off. */
    public Template dedupKey() {
        return dedupKey;
    }

    /** The dedup window, or null when dedup is off. */
    public Long dedupTtlMs() {
        return dedupKey.isEmpty() ? null : getLong(DEDUP_TTL_MS);
    }

    /** The delay header's name; empty when none is read. */
    public String delayHeader() {
        return getString(DELAY_HEADER);
    }

    public long delayMs() {
        return getLong(DELAY_MS);
    }

    /** Whether records may be held until a due time. */
    public boolean delays() {
        return !delayHeader().isEmpty() || delayMs() > 0;
    }

    public int batchMaxRecords() {
        return getInt(BATCH_MAX_RECORDS);
    }

    public int retryMax() {
        return getInt(RETRY_MAX);
    }

    public long retryBackoffMs() {
        return getLong(RETRY_BACKOFF_MS);
    }

    /** Every key with its value; secrets show as [hidden], so this is safe to log. */
    @Override
    public String toString() {
        return "PgQueSinkConfig" + new java.util.TreeMap<>(values());
    }

    /** {@code pgque.queue}: a template over ${topic}; when it is a fixed name, that name must be valid. */
    private static final class QueueTemplateValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            Template template = Template.parse(name, value == null ? null : value.toString(), QUEUE_PLACEHOLDERS);
            if (template.isConstant() && !template.isEmpty()) {
                String problem = QueueNames.problem(template.source());
                if (problem != null) {
                    throw new ConfigException(name, value, problem);
                }
            }
        }

        @Override
        public String toString() {
            return "queue name, or template with ${topic}";
        }
    }
}
