package io.pgque.connect.source;

import io.pgque.client.Event;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfo;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connector in a real Connect cluster (one KRaft broker, one worker, in this JVM) reading a
 * real PostgreSQL. One cluster for the whole class: it is the slow part.
 */
class SourceConnectorIT {

    private static final String SESSIONS = "select %s from pg_stat_activity where datname = current_database() "
            + "and application_name like 'pgque-source-flaky-src%'";
    private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(120);
    private static EmbeddedConnectCluster connect;
    private static QueueFixture pg;

    @BeforeAll
    static void start() {
        pg = new QueueFixture("source_connect_it");
        Map<String, String> worker = new HashMap<>();
        worker.put("plugin.discovery", "service_load");
        worker.put("offset.flush.interval.ms", "1000");
        connect = new EmbeddedConnectCluster.Builder()
                .name("pgque-source-it")
                .numWorkers(1)
                .numBrokers(1)
                .workerProps(worker)
                .build();
        connect.start();
    }

    @AfterAll
    static void stop() {
        if (connect != null) {
            connect.stop();
        }
    }

    /** (a) Every event arrives, and per key the order in Kafka is the send order. */
    @Test
    void everyEventArrivesInPerKeyOrderThroughTwoTasksAndFourSlots() throws Exception {
        String queue = "orders";
        pg.createQueue(queue);
        connect.kafka().createTopic("orders", 3);
        Map<String, String> config = connectorConfig("orders-src", queue, 4, 2);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector("orders-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("orders-src", 2, "source did not start");

        int keys = 200;
        int perKey = 100;
        sendInterleaved(queue, keys, perKey, 500);

        Map<String, List<Integer>> byKey = readPerKey("orders", keys * perKey);
        assertPerKeyOrder(byKey, keys, perKey);
        QueueFixture.await("the tasks' plugin metrics to count every acked record", DELIVERY_TIMEOUT,
                () -> pluginMetricSum("orders-src", "records-acked-total") >= keys * perKey);
        connect.deleteConnector("orders-src");
    }

    /** (b) With fewer tasks than slots, slots that get no events still move, so none pins rotation. */
    @Test
    void idleSlotsKeepMovingWhenTasksAreFewerThanSlots() throws Exception {
        String queue = "sparse";
        int n = 4;
        pg.createQueue(queue);
        connect.kafka().createTopic("sparse", 1);
        Map<String, String> config = connectorConfig("sparse-src", queue, n, 2);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector("sparse-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("sparse-src", 2, "source did not start");

        // Every event goes to slot 0; slots 1..3 see the same ticks but never an event.
        List<String> keys = pg.keysOnSlot("only-zero", 0, n, 5);
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String key = keys.get(i % keys.size());
            events.add(Event.of("sparse", key + ":" + (i / keys.size())).withPartitionKey(key));
        }
        pg.send(queue, events);

        readPerKey("sparse", events.size());
        QueueFixture.await("every slot's pending events back to 0", DELIVERY_TIMEOUT, () -> {
            for (int slot = 0; slot < n; slot++) {
                if (pg.pendingEvents(queue, "sparse-src", slot) != 0) {
                    return false;
                }
            }
            return true;
        });
        connect.deleteConnector("sparse-src");
    }

    /** (c) validate() reports a pinned N, idle tasks and a missing queue, each under its key. */
    @Test
    void validateReportsWrongSlotsIdleTasksAndUnknownQueue() {
        String queue = "pinned";
        pg.createQueue(queue);
        pg.pgque.slotConsumer(queue, "pinned-src", 4, "setup").subscribe();

        Map<String, String> good = connectorConfig("pinned-src", queue, 4, 2);
        assertEquals(0, connect.validateConnectorConfig("PgQueSourceConnector", good).errorCount(),
                "a good config has no errors");

        Map<String, String> wrongN = connectorConfig("pinned-src", queue, 3, 2);
        assertError(wrongN, "pgque.slots", "already exists with 4 slots");

        Map<String, String> idle = connectorConfig("pinned-src", queue, 4, 6);
        assertError(idle, "pgque.slots", "2 task(s) would stay idle");

        Map<String, String> unknown = connectorConfig("pinned-src", "no_such_queue", 4, 2);
        assertError(unknown, "pgque.queue", "does not exist");

        Map<String, String> exactlyOnce = connectorConfig("pinned-src", queue, 4, 2);
        exactlyOnce.put("pgque.delivery.guarantee", "exactly_once");
        assertError(exactlyOnce, "pgque.delivery.guarantee", "not supported");
    }

    /** Fault: tasks.max goes from 2 to 4 while events flow; slots move to new tasks without loss or reordering. */
    @Test
    void reassigningSlotsMidStreamKeepsEveryEventAndPerKeyOrder() throws Exception {
        String queue = "rescale";
        pg.createQueue(queue);
        connect.kafka().createTopic("rescale", 3);
        Map<String, String> config = connectorConfig("rescale-src", queue, 4, 2);
        config.put("pgque.ticker.enabled", "true");
        connect.configureConnector("rescale-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("rescale-src", 2, "source did not start");

        int keys = 50;
        int perKey = 60;
        Thread producer = new Thread(() -> sendInterleaved(queue, keys, perKey, 100), "it-producer");
        producer.start();
        config.put("tasks.max", "4");
        connect.configureConnector("rescale-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("rescale-src", 4, "source did not rescale");
        producer.join(DELIVERY_TIMEOUT.toMillis());

        assertPerKeyOrder(readPerKey("rescale", keys * perKey), keys, perKey);
        connect.deleteConnector("rescale-src");
    }

    /** Fault: the database drops the connector's sessions, again and again, while events flow. */
    @Test
    void droppedDatabaseSessionsLoseNothingAndKeepOrder() throws Exception {
        String queue = "flaky";
        pg.createQueue(queue);
        connect.kafka().createTopic("flaky", 2);
        Map<String, String> config = connectorConfig("flaky-src", queue, 2, 1);
        config.put("pgque.ticker.enabled", "true");
        config.put("connection.backoff.ms", "200");
        connect.configureConnector("flaky-src", config);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("flaky-src", 1, "source did not start");

        int keys = 20;
        int rounds = 3;
        int perRound = 50;
        for (int round = 0; round < rounds; round++) {
            List<Event> events = new ArrayList<>();
            for (int seq = round * perRound; seq < (round + 1) * perRound; seq++) {
                for (int k = 0; k < keys; k++) {
                    events.add(Event.of("flaky", "key-" + k + ":" + seq).withPartitionKey("key-" + k));
                }
            }
            pg.send(queue, events);
            // The pools reconnect lazily; drop sessions only once the task is talking to the database again.
            QueueFixture.await("the connector to have database sessions", DELIVERY_TIMEOUT,
                    () -> pg.queryLong(SESSIONS.replace("%s", "count(*)")) > 0);
            assertTrue(pg.queryLong(SESSIONS.replace("%s", "count(pg_terminate_backend(pid))")) > 0);
        }
        assertPerKeyOrder(readPerKey("flaky", keys * rounds * perRound), keys, rounds * perRound);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning("flaky-src", 1, "the task survived");
        connect.deleteConnector("flaky-src");
    }

    /** Sum of one plugin metric over the connector's tasks, read over JMX like an operator would. */
    private static double pluginMetricSum(String connector, String attribute) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            double sum = 0;
            for (ObjectName name : server.queryNames(new ObjectName("kafka.connect:type=plugins,connector="
                    + connector + ",*"), null)) {
                if (name.getKeyProperty("slot") == null) {
                    sum += ((Number) server.getAttribute(name, attribute)).doubleValue();
                }
            }
            return sum;
        } catch (Exception e) {
            throw new AssertionError("cannot read plugin metric " + attribute + ": " + e, e);
        }
    }

    private static Map<String, String> connectorConfig(String name, String queue, int slots, int tasks) {
        Map<String, String> config = new HashMap<>();
        config.put("name", name);
        config.put("connector.class", PgQueSourceConnector.class.getName());
        config.put("tasks.max", Integer.toString(tasks));
        config.put("connection.url", pg.jdbcUrl());
        config.put("pgque.queue", queue);
        config.put("pgque.slots", Integer.toString(slots));
        config.put("topic", queue);
        config.put("pgque.poll.interval.ms", "100");
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        return config;
    }

    /** Sends {@code perKey} events for each key, key by key in turn, {@code perTransaction} per transaction. */
    private static void sendInterleaved(String queue, int keys, int perKey, int perTransaction) {
        List<Event> pending = new ArrayList<>();
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                String key = "key-" + k;
                pending.add(Event.of("order", key + ":" + seq).withPartitionKey(key));
                if (pending.size() == perTransaction) {
                    pg.send(queue, pending);
                    pending = new ArrayList<>();
                }
            }
        }
        if (!pending.isEmpty()) {
            pg.send(queue, pending);
        }
    }

    /**
     * Reads the topic from the start until {@code expected} distinct events were seen; returns,
     * per key, the sequence numbers in partition order (duplicates included).
     */
    private static Map<String, List<Integer>> readPerKey(String topic, int expected) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + topic + "-" + System.nanoTime());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        Map<String, List<Integer>> byKey = new HashMap<>();
        Map<String, Integer> partitionOfKey = new HashMap<>();
        Set<String> distinct = new HashSet<>();
        long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumerAndSubscribeTo(props, topic)) {
            while (distinct.size() < expected) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("only " + distinct.size() + " of " + expected + " events reached "
                            + topic + " within " + DELIVERY_TIMEOUT.toSeconds() + " s");
                }
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    String key = new String(record.key(), StandardCharsets.UTF_8);
                    String value = new String(record.value(), StandardCharsets.UTF_8);
                    Integer previous = partitionOfKey.putIfAbsent(key, record.partition());
                    assertTrue(previous == null || previous == record.partition(), "key " + key + " in two partitions");
                    distinct.add(value);
                    byKey.computeIfAbsent(key, k -> new ArrayList<>())
                            .add(Integer.parseInt(value.substring(value.lastIndexOf(':') + 1)));
                }
            }
        }
        return byKey;
    }

    /**
     * Per key, every sequence number is there, and each first delivery comes after the first
     * delivery of its predecessor: duplicates may replay a suffix, never reorder new events.
     */
    private static void assertPerKeyOrder(Map<String, List<Integer>> byKey, int keys, int perKey) {
        assertEquals(keys, byKey.size(), "every key arrived");
        int duplicates = 0;
        for (Map.Entry<String, List<Integer>> entry : byKey.entrySet()) {
            int next = 0;
            for (int seq : entry.getValue()) {
                if (seq == next) {
                    next++;
                } else if (seq > next) {
                    throw new AssertionError("key " + entry.getKey() + ": event " + seq + " arrived before " + next
                            + " (" + entry.getValue() + ")");
                } else {
                    duplicates++;
                }
            }
            assertEquals(perKey, next, "key " + entry.getKey() + " complete");
        }
        System.out.println("per-key order held for " + keys + " keys; " + duplicates + " replayed duplicates");
    }

    private static void assertError(Map<String, String> config, String key, String text) {
        ConfigInfos result = connect.validateConnectorConfig("PgQueSourceConnector", config);
        List<String> errors = new ArrayList<>();
        for (ConfigInfo info : result.configs()) {
            if (info.configValue() != null && key.equals(info.configValue().name())) {
                errors.addAll(info.configValue().errors());
            }
        }
        assertTrue(errors.stream().anyMatch(e -> e.contains(text)),
                "expected an error containing '" + text + "' under " + key + ", got " + errors);
    }
}
