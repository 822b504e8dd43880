/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.config;

import io.pgque.client.Message;
import io.pgque.connect.common.config.DeliveryGuarantee;
import io.pgque.connect.source.config.EventHeaders;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SourceConfigTest {

    static Map<String, String> minimal() {
        Map<String, String> props = new HashMap<>();
        props.put("name", "orders-source");
        props.put("connection.url", "jdbc:postgresql://localhost:5432/app");
        props.put("pgque.queue", "orders");
        props.put("pgque.slots", "4");
        props.put("topic", "orders");
        return props;
    }

    static Map<String, String> with(String key, String value) {
        Map<String, String> props = minimal();
        props.put(key, value);
        return props;
    }

    @Test
    void defaults() {
        SourceConfig config = new SourceConfig(minimal());
        assertEquals("orders-source", config.consumer(), "the consumer defaults to the connector's name");
        assertEquals(4, config.slots());
        assertEquals(ValueFormat.STRING, config.valueFormat());
        assertEquals(KafkaPartitioner.KEY, config.partitioner());
        assertEquals(Duration.ofSeconds(10), config.leaseTtl());
        assertEquals(Duration.ofMillis(100), config.tickerInterval());
        assertFalse(config.tickerEnabled());
        assertEquals(DeliveryGuarantee.AT_LEAST_ONCE, config.deliveryGuarantee());
        assertTrue(config.topic().isConstant());
        assertTrue(SourceConfigRules.check(config, "4").isEmpty());
    }

    @Test
    void recordsCarryEveryHeaderUnlessTold() {
        assertHeaderNames(new SourceConfig(minimal()).headers(),
                "pgque.event.id", "pgque.event.type", "pgque.batch.id", "pgque.slot", "pgque.epoch", "pgque.retry.count");
        assertHeaderNames(new SourceConfig(with("pgque.headers", " pgque.epoch , pgque.event.id")).headers(),
                "pgque.event.id", "pgque.epoch");
        assertHeaderNames(new SourceConfig(with("pgque.headers", "")).headers());
    }

    @Test
    void anExplicitConsumerWins() {
        assertEquals("billing", new SourceConfig(with("pgque.consumer", "billing")).consumer());
    }

    @Test
    void unsetChunksShareOneBudgetAmongTheSlotsAndWindowsHoldTwoAndAHalfChunks() {
        SourceConfig derived = new SourceConfig(minimal());
        assertEquals(4_000, derived.batchMaxEvents(1));
        assertEquals(10_000, derived.batchCatchUpMaxEvents(1));
        assertEquals(2_000, derived.batchMaxEvents(2));
        assertEquals(5_000, derived.batchCatchUpMaxEvents(2));
        assertEquals(1_333, derived.batchMaxEvents(3));
        assertEquals(1_000, derived.batchMaxEvents(4));
        assertEquals(2_500, derived.batchCatchUpMaxEvents(4));
        assertEquals(1_000, derived.batchMaxEvents(64), "never below 1000");
        assertEquals(1_000, derived.cooperativeBatchMaxEvents());

        SourceConfig chunk = new SourceConfig(with("pgque.batch.max.events", "500"));
        assertEquals(500, chunk.batchMaxEvents(1), "a chunk set is kept whatever N");
        assertEquals(500, chunk.batchMaxEvents(8));
        assertEquals(500, chunk.cooperativeBatchMaxEvents());
        assertEquals(1_250, chunk.batchCatchUpMaxEvents(1), "the window follows the chunk set");

        SourceConfig window = new SourceConfig(with("pgque.batch.catchup.max.events", "0"));
        assertEquals(0, window.batchCatchUpMaxEvents(1), "0 stays one tick per batch");
        assertEquals(4_000, window.batchMaxEvents(1));
    }

    @Test
    void everyBadValueIsRejectedNamingItsKey() {
        assertRejected("pgque.slots", "0", "between 1 and 256");
        assertRejected("pgque.slots", "257", "between 1 and 256");
        assertRejected("pgque.value.format", "xml", "string, json");
        assertRejected("pgque.headers", "pgque.event.id,pgque.lsn", "pgque.event.id, pgque.event.type");
        assertRejected("pgque.kafka.partitioner", "round_robin", "key, slot");
        assertRejected("pgque.delivery.guarantee", "twice", "at_least_once, exactly_once");
        assertRejected("pgque.lease.ttl.ms", "999", "at least 1000");
        assertRejected("pgque.poll.interval.ms", "0", "at least 10");
        assertRejected("pgque.batch.max.events", "0", "between 1 and 100000");
        assertRejected("pgque.batch.catchup.max.events", "-1", "between 0 and 1000000");
        assertRejected("pgque.ticker.interval.ms", "5", "at least 10");
        assertRejected("pgque.kafka.partitions", "0", "between 1 and");
        assertRejected("pgque.consumer", "a#b", "'#'");
        assertRejected("pgque.mode", "unordered", "ordered, cooperative");
        assertRejected("pgque.failure.policy", "retry", "skip, pause");
        assertRejected("pgque.failure.retry.ms", "-1", "at least 0");
        assertRejected("topic", "orders.${topic}", "${type}");
        assertRejected("pgque.queue", "", "pgque.queue");
    }

    @Test
    void requiredKeysAreNamedWhenMissing() {
        for (String key : List.of("pgque.queue", "topic", "connection.url")) {
            Map<String, String> props = minimal();
            props.remove(key);
            ConfigException e = assertThrows(ConfigException.class, () -> new SourceConfig(props), key);
            assertTrue(e.getMessage().contains(key), e.getMessage());
        }
    }

    @Test
    void exactlyOnceNeedsConnectToRequireExactlyOnceSupport() {
        Map<String, List<String>> problems = rules(with("pgque.delivery.guarantee", "exactly_once"), null);
        assertTrue(problems.get("pgque.delivery.guarantee").get(0).contains("exactly.once.support=required"),
                problems.toString());
        assertThrows(ConfigException.class,
                () -> SourceConfigRules.require(new SourceConfig(with("pgque.delivery.guarantee", "EXACTLY_ONCE"))));

        Map<String, String> props = with("pgque.delivery.guarantee", "exactly_once");
        props.put("exactly.once.support", "Required");
        assertTrue(rules(props, null).isEmpty(), "accepted once Connect refuses to run it without transactions");
    }

    @Test
    void onlyExactlyOnceRequestsExactlyOnceSupport() {
        assertTrue(SourceConfig.requestsExactlyOnce(Map.of("pgque.delivery.guarantee", " Exactly_Once ")));
        assertFalse(SourceConfig.requestsExactlyOnce(Map.of()), "at_least_once is the default");
        assertFalse(SourceConfig.requestsExactlyOnce(Map.of("pgque.delivery.guarantee", "at_least_once")));
        assertFalse(SourceConfig.requestsExactlyOnce(Map.of("pgque.delivery.guarantee", "twice")));
    }

    @Test
    void moreTasksThanSlotsIsAcceptedWithAWarningNamingTasksMax() {
        assertTrue(rules(minimal(), "6").isEmpty(), "Connect lets a connector run fewer tasks than tasks.max");
        List<String> warnings = SourceConfigRules.warnings(new SourceConfig(minimal()), "6");
        assertEquals(1, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).contains("tasks.max=6") && warnings.get(0).contains("runs 4 task(s), one per slot"),
                warnings.get(0));
        assertTrue(SourceConfigRules.warnings(new SourceConfig(minimal()), "4").isEmpty());
    }

    @Test
    void orderedModeIsTheDefaultAndNeedsSlots() {
        assertEquals(SourceMode.ORDERED, new SourceConfig(minimal()).mode());
        Map<String, String> props = minimal();
        props.remove("pgque.slots");
        String message = rules(props, null).get("pgque.slots").get(0);
        assertTrue(message.contains("pgque.slots is required with pgque.mode=ordered"), message);
        assertTrue(message.contains("pgque.mode=cooperative") && message.contains("ordered, cooperative"),
                "offers the other mode and lists the allowed values: " + message);
        assertThrows(ConfigException.class, () -> SourceConfigRules.require(new SourceConfig(props)));
    }

    @Test
    void cooperativeModeHasNoSlotsAndNoTaskLimit() {
        Map<String, String> props = with("pgque.mode", "Cooperative");
        String message = rules(props, "4").get("pgque.slots").get(0);
        assertTrue(message.contains("pgque.slots applies only to pgque.mode=ordered"), message);

        props.remove("pgque.slots");
        SourceConfig config = new SourceConfig(props);
        assertEquals(SourceMode.COOPERATIVE, config.mode());
        assertTrue(SourceConfigRules.check(config, "16").isEmpty(), "any tasks.max: tasks take batches in turn");
        assertThrows(ConfigException.class, config::slots);
    }

    @Test
    void theFailurePolicyIsSkipUnlessTheConnectorPausesKeys() {
        assertEquals(FailurePolicy.SKIP, new SourceConfig(minimal()).failurePolicy());
        SourceConfig paused = new SourceConfig(with("pgque.failure.policy", "PAUSE"));
        assertEquals(FailurePolicy.PAUSE, paused.failurePolicy());
        assertEquals(java.time.Duration.ofMinutes(1), paused.failureRetry());
        assertTrue(rules(with("pgque.failure.policy", "pause"), null).isEmpty());
    }

    @Test
    void cooperativeModeHasNoKeyToPause() {
        Map<String, String> props = with("pgque.mode", "cooperative");
        props.remove("pgque.slots");
        props.put("pgque.failure.policy", "pause");
        String message = rules(props, null).get("pgque.failure.policy").get(0);
        assertTrue(message.contains("pgque.failure.policy=pause holds back a key on its slot"), message);
        assertTrue(message.contains("allowed values: skip, pause"), message);
    }

    @Test
    void cooperativeModeRefusesWhatNeedsSlotsOrADotInTheName() {
        Map<String, String> props = with("pgque.mode", "cooperative");
        props.remove("pgque.slots");
        props.put("pgque.kafka.partitioner", "slot");
        props.put("pgque.kafka.partitions", "3");
        String message = rules(props, null).get("pgque.kafka.partitioner").get(0);
        assertTrue(message.contains("pgque.kafka.partitioner=slot needs slots"), message);

        props.remove("pgque.kafka.partitioner");
        props.put("name", "orders.source");
        message = rules(props, null).get("pgque.consumer").get(0);
        assertTrue(message.contains("'orders.source' contains '.'"), message);
        props.put("pgque.consumer", "orders_source");
        assertTrue(rules(props, null).isEmpty());
    }

    @Test
    void pollIntervalMustLeaveTheLeaseTimeToBeRenewed() {
        Map<String, String> props = with("pgque.lease.ttl.ms", "2000");
        props.put("pgque.poll.interval.ms", "1000");
        assertTrue(rules(props, null).get("pgque.poll.interval.ms").get(0).contains("half of pgque.lease.ttl.ms"));
    }

    @Test
    void socketTimeoutMustOutlastTheStatementTimeout() {
        Map<String, String> props = with("connection.statement.timeout.ms", "50000");
        String message = rules(props, null).get("connection.socket.timeout.ms").get(0);
        assertTrue(message.contains("connection.statement.timeout.ms=50000") && message.contains("51000"), message);
        props.put("connection.socket.timeout.ms", "51000");
        assertTrue(rules(props, null).isEmpty());
    }

    @Test
    void aUserInTheUrlMustNotContradictConnectionUser() {
        Map<String, String> props = with("connection.url", "jdbc:postgresql://db.example:5432/app?ssl=true&user=app_owner");
        props.put("connection.user", "kafka_source");
        String message = rules(props, null).get("connection.user").get(0);
        assertTrue(message.contains("the driver would log in as app_owner") && message.contains("connection.url"), message);
        props.put("connection.user", "app_owner");
        assertTrue(rules(props, null).isEmpty());
    }

    @Test
    void slotPartitioningNeedsThePartitionCount() {
        Map<String, String> props = with("pgque.kafka.partitioner", "slot");
        assertTrue(rules(props, null).containsKey("pgque.kafka.partitions"));
        props.put("topic.creation.default.partitions", "3");
        assertEquals(OptionalInt.of(3), new SourceConfig(props).kafkaPartitions());
        assertTrue(rules(props, null).isEmpty());
        props.put("pgque.kafka.partitions", "6");
        assertEquals(OptionalInt.of(6), new SourceConfig(props).kafkaPartitions(), "the explicit count wins");
    }

    @Test
    void theValueFormatMustSuitAValueConverterNamedInTheConnector() {
        String bytes = "org.apache.kafka.connect.converters.ByteArrayConverter";
        String text = "org.apache.kafka.connect.storage.StringConverter";
        Map<String, String> props = with("pgque.value.format", "bytes");
        assertEquals(ValueFormat.BYTES, new SourceConfig(props).valueFormat());
        assertTrue(rules(props, null).isEmpty(), "the worker's converter is not known: nothing to check");
        props.put("value.converter", text);
        String message = rules(props, null).get("pgque.value.format").get(0);
        assertTrue(message.contains("value.converter=" + bytes) && message.contains("pgque.value.format=string"),
                message);
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        message = rules(props, null).get("pgque.value.format").get(0);
        assertTrue(message.contains("base64") && message.contains("pgque.value.format=json"), message);
        props.put("value.converter", bytes);
        assertTrue(rules(props, null).isEmpty());
        for (String format : List.of("string", "json", "envelope")) {
            props.put("pgque.value.format", format);
            message = rules(props, null).get("pgque.value.format").get(0);
            assertTrue(message.contains("pgque.value.format=" + format) && message.contains("pgque.value.format=bytes"),
                    message);
        }
        props.put("value.converter", text);
        props.put("pgque.value.format", "string");
        assertTrue(rules(props, null).isEmpty());
    }

    @Test
    void aConsumerNameIsNeededFromSomewhere() {
        Map<String, String> props = minimal();
        props.remove("name");
        assertTrue(rules(props, null).containsKey("pgque.consumer"));
    }

    @Test
    void secretsAreDeclaredAsPasswords() {
        ConfigDef def = SourceConfigDef.build();
        assertEquals(ConfigDef.Type.PASSWORD, def.configKeys().get("connection.password").type);
        assertTrue(new SourceConfig(with("connection.password", "s3cret")).toString().indexOf("s3cret") < 0);
    }

    @Test
    void everyKeyIsDocumentedAndGrouped() {
        for (ConfigDef.ConfigKey key : SourceConfigDef.build().configKeys().values()) {
            assertFalse(key.documentation == null || key.documentation.isBlank(), key.name);
            assertFalse(key.group == null || key.group.isBlank(), key.name);
        }
    }

    /** The header names {@code headers} writes for an event with no extras, read on a slot. */
    private static void assertHeaderNames(EventHeaders headers, String... expected) {
        Message event = new Message(1, 2, "t", "p", 0, null, "k", null, null, null);
        List<String> names = new ArrayList<>();
        headers.of(event, 0, 1).forEach(h -> names.add(h.key()));
        assertEquals(List.of(expected), names);
    }

    private static Map<String, List<String>> rules(Map<String, String> props, String tasksMax) {
        return SourceConfigRules.check(new SourceConfig(props), tasksMax);
    }

    private static void assertRejected(String key, String value, String expected) {
        ConfigException e = assertThrows(ConfigException.class, () -> new SourceConfig(with(key, value)),
                key + "=" + value);
        assertTrue(e.getMessage().contains(key), "names the key: " + e.getMessage());
        assertTrue(e.getMessage().contains(expected), "says what is allowed (" + expected + "): " + e.getMessage());
    }
}
