/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.connect.common.config.ConnectionConfigDef;
import io.pgque.connect.common.config.EngineConfigDef;
import io.pgque.connect.common.config.OptionalRange;
import io.pgque.connect.common.config.ValueConverter;
import io.pgque.connect.common.template.PlaceholderKind;
import io.pgque.connect.common.template.Template;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.NonEmptyString;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Every key the source connector accepts, declared once as data: the shared {@code connection.*}
 * and engine keys from the common library plus the source's own. {@link SourceConfig} reads them.
 */
public final class SourceConfigDef {

    public static final String QUEUE_GROUP = "Queue";
    public static final String KAFKA_GROUP = "Kafka";
    public static final String POLLING_GROUP = "Polling";
    public static final String TICKER_GROUP = "Ticker";

    public static final String QUEUE = "pgque.queue";
    public static final String CONSUMER = "pgque.consumer";
    public static final String MODE = "pgque.mode";
    public static final String SLOTS = "pgque.slots";

    public static final String TOPIC = "topic";
    public static final String VALUE_FORMAT = "pgque.value.format";
    /** Connect's own key, read to catch a value format its converter cannot write. */
    public static final String VALUE_CONVERTER = ValueConverter.KEY;
    public static final String STRING_CONVERTER = ValueConverter.STRING;
    public static final String BYTE_ARRAY_CONVERTER = ValueConverter.BYTE_ARRAY;
    public static final String JSON_CONVERTER = ValueConverter.JSON;
    public static final String PARTITIONER = "pgque.kafka.partitioner";
    public static final String PARTITIONS = "pgque.kafka.partitions";
    public static final String HEADERS = "pgque.headers";
    public static final String FAILURE_POLICY = "pgque.failure.policy";
    public static final String FAILURE_RETRY_MS = "pgque.failure.retry.ms";

    public static final String LEASE_TTL_MS = "pgque.lease.ttl.ms";
    public static final String POLL_INTERVAL_MS = "pgque.poll.interval.ms";
    public static final String BATCH_MAX_EVENTS = "pgque.batch.max.events";
    public static final String BATCH_CATCHUP_MAX_EVENTS = "pgque.batch.catchup.max.events";
    public static final String BATCH_READ_AHEAD = "pgque.batch.read.ahead";
    public static final String BATCH_SEND_AHEAD = "pgque.batch.send.ahead";
    public static final String METRICS_LOG_INTERVAL_MS = "pgque.metrics.log.interval.ms";

    public static final String TICKER_ENABLED = "pgque.ticker.enabled";
    public static final String TICKER_INTERVAL_MS = "pgque.ticker.interval.ms";
    public static final String MAINT_INTERVAL_MS = "pgque.maint.interval.ms";
    public static final String RETRY_INTERVAL_MS = "pgque.maint.retry.interval.ms";

    /** Connect's own key for the connector's name; the default consumer name. */
    public static final String CONNECTOR_NAME = "name";
    /** Connect's own key; read by validate() to spot idle tasks. */
    public static final String TASKS_MAX = "tasks.max";
    /** Connect's own key: {@code required} makes Connect refuse a worker without exactly-once source support. */
    public static final String EXACTLY_ONCE_SUPPORT = "exactly.once.support";
    /** Connect's topic-creation default, used for {@link #PARTITIONS} when that is not set. */
    public static final String TOPIC_CREATION_PARTITIONS = "topic.creation.default.partitions";

    public static final int MAX_SLOTS = 256;
    public static final Set<PlaceholderKind> TOPIC_PLACEHOLDERS = EnumSet.of(PlaceholderKind.TYPE);

    public static final SourceMode MODE_DEFAULT = SourceMode.ORDERED;
    public static final ValueFormat VALUE_FORMAT_DEFAULT = ValueFormat.STRING;
    public static final KafkaPartitioner PARTITIONER_DEFAULT = KafkaPartitioner.KEY;
    public static final FailurePolicy FAILURE_POLICY_DEFAULT = FailurePolicy.SKIP;
    public static final long FAILURE_RETRY_MS_DEFAULT = 60_000L;
    public static final long LEASE_TTL_MS_DEFAULT = 10_000L;
    /** The engine's default lease_max_ttl of a queue: a longer lease is refused. */
    public static final long LEASE_TTL_MS_MAX = 3_600_000L;
    public static final long POLL_INTERVAL_MS_DEFAULT = 500L;
    public static final boolean BATCH_READ_AHEAD_DEFAULT = true;
    public static final boolean BATCH_SEND_AHEAD_DEFAULT = true;
    public static final long METRICS_LOG_INTERVAL_MS_DEFAULT = 60_000L;
    public static final long TICKER_INTERVAL_MS_DEFAULT = 100L;
    public static final long MAINT_INTERVAL_MS_DEFAULT = 30_000L;
    public static final long RETRY_INTERVAL_MS_DEFAULT = 5_000L;

    private SourceConfigDef() {
    }

    /** A fresh definition with every key; callers may not share and mutate one. */
    public static ConfigDef build() {
        ConfigDef def = new ConfigDef();
        ConnectionConfigDef.addTo(def);
        EngineConfigDef.addTo(def, "at_least_once: every event of a slot reaches Kafka before the slot's "
                + "batch is acked; a failure may replay the rest of a batch (duplicates, never reordering). "
                + "exactly_once: each PgQue batch goes into Kafka in one transaction together with its source "
                + "offset, and a batch Kafka already holds is acked without being sent again; needs "
                + "exactly.once.source.support=enabled on the workers and " + EXACTLY_ONCE_SUPPORT
                + "=required here (transaction.boundary=connector recommended).");
        addQueueKeys(def);
        addKafkaKeys(def);
        addPollingKeys(def);
        addTickerKeys(def);
        return def;
    }

    private static void addQueueKeys(ConfigDef def) {
        int order = 0;
        def.define(QUEUE, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new NonEmptyString(), Importance.HIGH,
                "The PgQue queue to read.",
                QUEUE_GROUP, ++order, Width.MEDIUM, "Queue");
        def.define(CONSUMER, Type.STRING, "", ConsumerNameValidator.INSTANCE, Importance.HIGH,
                "Logical consumer name; its slots are subscribed as \"<consumer>#k/N\" (ordered), its "
                        + "workers as \"<consumer>.task-<i>\" (cooperative). "
                        + "Empty (default): the connector's name.",
                QUEUE_GROUP, ++order, Width.MEDIUM, "Consumer");
        def.define(MODE, Type.STRING, SourceMode.CHOICE.label(MODE_DEFAULT), SourceMode.CHOICE.validator(),
                Importance.HIGH,
                SourceMode.CHOICE.document("How the tasks share the queue. ordered: through " + SLOTS
                        + " hash slots, one task per slot, events of one partition key in order. cooperative "
                        + "(experimental): every task is a worker (subconsumer \"task-<i>\") of one cooperative "
                        + "consumer and takes whole batches in turn; no order between batches, so no per-key "
                        + "order, but every event is read once and throughput grows with tasks.max."),
                QUEUE_GROUP, ++order, Width.SHORT, "Mode", SourceMode.CHOICE.recommender());
        def.define(SLOTS, Type.INT, null, OptionalRange.between(1, MAX_SLOTS), Importance.HIGH,
                "N, the number of hash slots the consumer reads through (1.." + MAX_SLOTS + "); required "
                        + "with " + MODE + "=ordered, not allowed with " + MODE + "=cooperative. "
                        + "Changing it on an existing consumer resizes it online, keeping per-key order "
                        + "(docs/source.md, Changing N online). It caps the useful tasks.max.",
                QUEUE_GROUP, ++order, Width.SHORT, "Slots (N)");
    }

    private static void addKafkaKeys(ConfigDef def) {
        int order = 0;
        def.define(TOPIC, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Template.validator(TOPIC_PLACEHOLDERS),
                Importance.HIGH,
                "Target topic: a fixed name, or a template over ${type} (the event type), "
                        + "e.g. \"orders.${type}\".",
                KAFKA_GROUP, ++order, Width.LONG, "Topic");
        def.define(VALUE_FORMAT, Type.STRING, ValueFormat.CHOICE.label(VALUE_FORMAT_DEFAULT),
                ValueFormat.CHOICE.validator(), Importance.MEDIUM,
                ValueFormat.CHOICE.document("How the event becomes the record value: string keeps the payload "
                        + "text; json parses it into a schemaless Map/List (a payload that is not JSON fails the task); "
                        + "envelope is the whole event as a Struct with a fixed schema io.pgque.Event (id, type, "
                        + "payload as text, time, extra1..extra4, retry_count), for schema-based converters "
                        + "(Avro, Protobuf, JSON Schema, JsonConverter with schemas.enable=true); bytes is the payload's "
                        + "UTF-8 bytes as the database sent them, for ByteArrayConverter (the same bytes in Kafka as "
                        + "string with StringConverter, without decoding and encoding every payload)."),
                KAFKA_GROUP, ++order, Width.SHORT, "Value format", ValueFormat.CHOICE.recommender());
        def.define(FAILURE_POLICY, Type.STRING, FailurePolicy.CHOICE.label(FAILURE_POLICY_DEFAULT),
                FailurePolicy.CHOICE.validator(), Importance.MEDIUM,
                FailurePolicy.CHOICE.document("What an event that cannot become a record (a payload "
                        + VALUE_FORMAT + " cannot convert, an event type the topic template makes no topic of) does "
                        + "to its key (ordered mode). skip: errors.tolerance decides (none fails the task, all sends "
                        + "the event to the queue's dead letters) and the key's later events go on without it. "
                        + "pause: the event is retried every " + FAILURE_RETRY_MS + " and its key's later events "
                        + "wait, in order, until it becomes a record or is dead-lettered (after the queue's "
                        + "max_retries, or by an operator: docs/source.md, Paused keys); every other key flows. "
                        + "An event without a key has none to pause and follows errors.tolerance. With pause, "
                        + BATCH_SEND_AHEAD + " has no effect."),
                KAFKA_GROUP, ++order, Width.SHORT, "Failure policy", FailurePolicy.CHOICE.recommender());
        def.define(FAILURE_RETRY_MS, Type.LONG, FAILURE_RETRY_MS_DEFAULT, Range.between(0L, 86_400_000L),
                Importance.LOW,
                "With " + FAILURE_POLICY + "=pause: how long a paused event waits before it is read again, in "
                        + "milliseconds (the ticker's retry mover, " + RETRY_INTERVAL_MS + ", brings it back). "
                        + "The key stays paused for at most the queue's max_retries times this.",
                KAFKA_GROUP, ++order, Width.SHORT, "Paused event retry (ms)");
        def.define(PARTITIONER, Type.STRING, KafkaPartitioner.CHOICE.label(PARTITIONER_DEFAULT),
                KafkaPartitioner.CHOICE.validator(), Importance.MEDIUM,
                KafkaPartitioner.CHOICE.document("Which Kafka partition an event goes to: key lets the producer "
                        + "hash the record key (the partition key); slot sends slot k to partition k mod "
                        + PARTITIONS + "."),
                KAFKA_GROUP, ++order, Width.SHORT, "Kafka partitioner", KafkaPartitioner.CHOICE.recommender());
        def.define(PARTITIONS, Type.INT, null, OptionalRange.between(1, 1_000_000), Importance.MEDIUM,
                "Partition count of the target topic(s), for " + PARTITIONER + "=slot. Not set: "
                        + TOPIC_CREATION_PARTITIONS + " if given. Must not exceed the topic's real count.",
                KAFKA_GROUP, ++order, Width.SHORT, "Kafka partitions");
        def.define(HEADERS, Type.LIST, String.join(",", EventHeaders.NAMES), new HeaderNames(),
                Importance.LOW,
                "The provenance headers each record carries, any of " + String.join(", ", EventHeaders.NAMES)
                        + " (all by default; empty: none). " + EventHeaders.SLOT + " and " + EventHeaders.EPOCH
                        + " are written in ordered mode, " + EventHeaders.SUBCONSUMER + " in cooperative mode, "
                        + "the extras only when the event has them. Every header costs each record its conversion "
                        + "in the worker (the task's thread is what limits a one-slot drain) and its bytes in Kafka "
                        + "(the six of a slot's record about 110 B); keep the ones consumers read, "
                        + EventHeaders.EVENT_ID + " to deduplicate and " + EventHeaders.EPOCH + " to tell a fenced "
                        + "writer's records apart.",
                KAFKA_GROUP, ++order, Width.LONG, "Provenance headers");
    }

    /** {@code pgque.headers}: names of {@link EventHeaders#NAMES}, in any order. */
    private static final class HeaderNames implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            try {
                EventHeaders.of(headerNames(value));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, value, e.getMessage());
            }
        }

        @Override
        public String toString() {
            return "any of " + String.join(", ", EventHeaders.NAMES) + "; empty: none";
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> headerNames(Object value) {
        return value == null ? List.of() : ((List<String>) value).stream().map(String::trim)
                .filter(h -> !h.isEmpty()).toList();
    }

    private static void addPollingKeys(ConfigDef def) {
        int order = 0;
        def.define(LEASE_TTL_MS, Type.LONG, LEASE_TTL_MS_DEFAULT, Range.between(1_000L, LEASE_TTL_MS_MAX), Importance.MEDIUM,
                "Slot lease TTL in milliseconds (1000 to " + LEASE_TTL_MS_MAX + ", and at most the queue's lease_max_ttl, "
                        + "1 hour unless an admin changed it); a task renews its leases every third of it. "
                        + "A task that stops renewing for this long loses its slots to another task; a crashed "
                        + "task's slots wait up to this long, so it bounds recovery after a worker dies. Shorter "
                        + "means faster takeover, but a task stalled this long (a long GC pause, a slow database) "
                        + "is taken over and its batch replayed. Cooperative "
                        + "mode: the dead interval; in at_least_once a task silent this long while holding a batch "
                        + "loses it to another task (exactly_once never takes a batch over: the task's restart "
                        + "resumes it).",
                POLLING_GROUP, ++order, Width.SHORT, "Lease TTL (ms)");
        def.define(POLL_INTERVAL_MS, Type.LONG, POLL_INTERVAL_MS_DEFAULT, Range.between(10L, 60_000L),
                Importance.MEDIUM,
                "How long a slot that had no batch ready rests before it is asked again, in milliseconds, "
                        + "while the task does not hear the queue's ticks (LISTEN on pgque_<queue>); once it does, "
                        + "such a slot is asked on every tick and otherwise only when its lease wants renewing (a "
                        + "third of " + LEASE_TTL_MS + "), since only a tick can bring it a batch. Must be below half "
                        + "of " + LEASE_TTL_MS + ", since polling renews the lease.",
                POLLING_GROUP, ++order, Width.SHORT, "Poll interval (ms)");
        def.define(BATCH_MAX_EVENTS, Type.INT, null, OptionalRange.between(1, 100_000),
                Importance.LOW,
                "Events per read from the database, and most records one poll() returns (per slot of the "
                        + "task in exactly_once mode: twice that). A PgQue batch is streamed in chunks of this "
                        + "size (its first chunk with the receive, the rest through a cursor), a slot reading its "
                        + "next chunk while at most one is waiting for Kafka, so a task holds at most two chunks "
                        + "per slot however large the batch, and up to three more read ahead; the batch is acked "
                        + "after its last chunk is in Kafka. In exactly_once mode each poll() is one Kafka "
                        + "transaction holding the ready chunks of the task's slots, at most two per slot. "
                        + "Unset (the default): the connector's slots share " + BatchSizes.BUDGET + " events, "
                        + "at least " + BatchSizes.MIN_CHUNK + " each (4000 for 1 slot, 2000 for 2, 1000 for 4 or "
                        + "more, " + BatchSizes.MIN_CHUNK + " in cooperative mode): larger chunks drain one slot "
                        + "faster, but each slot holds up to five of them.",
                POLLING_GROUP, ++order, Width.SHORT, "Chunk size");
        def.define(BATCH_CATCHUP_MAX_EVENTS, Type.LONG, null, OptionalRange.between(0, 1_000_000),
                Importance.LOW,
                "How far one PgQue batch may reach when a slot is behind (ordered mode), in events of the slot: "
                        + "a slot several ticks back gets them as one batch, as many ticks as hold about this many of "
                        + "its events (the engine's window is this times N events of the queue), never less than one "
                        + "tick. A slot then catches up in one read-send-ack cycle per window instead of one per tick; "
                        + "a slot that keeps up still gets one tick per batch. In at_least_once mode the open batch "
                        + "is what a crash delivers again. 0: one tick per batch, as PgQue consumers read. Unset (the "
                        + "default): two and a half chunks (" + BATCH_MAX_EVENTS + "), so that a window's batch is "
                        + "read ahead in one query: 10000 for 1 slot, 5000 for 2, 2500 for 4 or more.",
                POLLING_GROUP, ++order, Width.SHORT, "Catch-up window (events)");
        def.define(BATCH_READ_AHEAD, Type.BOOLEAN, BATCH_READ_AHEAD_DEFAULT, Importance.LOW,
                "Whether a slot reads its next batch while the current one is on its way to Kafka (ordered "
                        + "mode): on a thread of the task's own, in one query when it holds up to three chunks "
                        + "(pgque.batch.max.events each), else into a cursor on a second connection; opened in "
                        + "PgQue only once the current batch is acked. A slot behind its queue then overlaps the "
                        + "database's work with Kafka's instead of doing them in turn. Costs a short query per batch "
                        + "when no batch follows yet, and up to two cursor connections per slot. Needs engine 0.3.0; "
                        + "on an older one the task reads each batch once it is open.",
                POLLING_GROUP, ++order, Width.SHORT, "Read ahead");
        def.define(BATCH_SEND_AHEAD, Type.BOOLEAN, BATCH_SEND_AHEAD_DEFAULT, Importance.LOW,
                "Whether a slot starts sending the batch it read ahead (pgque.batch.read.ahead, in one query) "
                        + "while Kafka still acknowledges the last records of the current one (ordered mode, "
                        + "at_least_once without Kafka transactions). The current batch is still acked in PgQue only "
                        + "once Kafka acknowledged its every record, and the next one opened only then, in the same "
                        + "transaction; but Kafka no longer waits idle for that ack and open at every batch boundary. "
                        + "What it costs: after a crash or a lost lease up to two batches of the slot are delivered "
                        + "again instead of one. Ignored in exactly_once mode, where each batch's records commit "
                        + "with its offsets.",
                POLLING_GROUP, ++order, Width.SHORT, "Send ahead");
        def.define(METRICS_LOG_INTERVAL_MS, Type.LONG, METRICS_LOG_INTERVAL_MS_DEFAULT, Range.atLeast(0L),
                Importance.LOW,
                "How often each task logs its slots' lag, pending events and throughput at INFO, in "
                        + "milliseconds; 0 turns the log line off (the metrics stay).",
                POLLING_GROUP, ++order, Width.SHORT, "Metrics log interval (ms)");
    }

    private static void addTickerKeys(ConfigDef def) {
        int order = 0;
        def.define(TICKER_ENABLED, Type.BOOLEAN, false, Importance.MEDIUM,
                "Tick the database from this connector: every task runs pgque.ticker_round(), pgque.maint() "
                        + "and pgque.maint_retry_events(), and the database lets one ticker round run at a time, "
                        + "so the ticks go on while any task is alive. Turn it on only where nothing else ticks "
                        + "the database; needs pgque_ticker (the ticker's own role; pgque_admin includes it).",
                TICKER_GROUP, ++order, Width.SHORT, "Run the ticker");
        def.define(TICKER_INTERVAL_MS, Type.LONG, TICKER_INTERVAL_MS_DEFAULT, Range.between(10L, 60_000L),
                Importance.LOW,
                "Tick period when " + TICKER_ENABLED + "=true, in milliseconds: events never wait longer than "
                        + "this for a tick, whatever the queue's ticker_max_count and ticker_max_lag (which still "
                        + "make a tick sooner, and alone rule any other ticker, e.g. pg_cron). Ticker rounds run "
                        + "at this fixed rate and tick a queue whose last tick is three quarters of it old, so "
                        + "ticks come between 0.75 and 1 times this apart while events wait.",
                TICKER_GROUP, ++order, Width.SHORT, "Ticker interval (ms)");
        def.define(MAINT_INTERVAL_MS, Type.LONG, MAINT_INTERVAL_MS_DEFAULT, Range.between(1_000L, 3_600_000L),
                Importance.LOW,
                "Period of pgque.maint() followed by pgque.maint_rotate_tables_step2(), in milliseconds.",
                TICKER_GROUP, ++order, Width.SHORT, "Maintenance interval (ms)");
        def.define(RETRY_INTERVAL_MS, Type.LONG, RETRY_INTERVAL_MS_DEFAULT, Range.between(100L, 3_600_000L),
                Importance.LOW,
                "Period of pgque.maint_retry_events(), which puts due retries back into the queue, in milliseconds.",
                TICKER_GROUP, ++order, Width.SHORT, "Retry interval (ms)");
    }
}
