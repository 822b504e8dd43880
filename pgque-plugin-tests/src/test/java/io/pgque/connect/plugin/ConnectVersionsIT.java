/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgque.client.PgQue;
import io.pgque.connect.plugin.process.ConnectRest;
import io.pgque.connect.plugin.process.WorkerFile;
import io.pgque.connect.plugin.process.WorkerProcess;
import io.pgque.testing.EmbeddedPg;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.util.clusters.EmbeddedKafkaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The support matrix, proved: for each supported line of Kafka Connect, a real worker of that
 * release ({@code ConnectDistributed} in a child JVM, on the class path that release's
 * connect-runtime brings from Maven Central, module {@code pgque-connect-runtimes}) gets both
 * plugin archives in its plugin.path and the shipped worker file and sample connectors
 * (deployment lines only changed), and keyed records go topic → sink → queue → source → topic,
 * every one of them, each key in order. Where the worker predates an API the connectors use for
 * metrics (Kafka 4.1's plugin metrics) the tasks run without them and say so in one log line.
 * The broker (KRaft, the current release) and PostgreSQL are shared by the versions, each of which
 * is a Connect cluster of its own.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ConnectVersionsIT {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(120);
    private static final int PARTITIONS = 2;
    private static final int KEYS = 8;
    private static final int PER_KEY = 25;
    private static final String NO_PLUGIN_METRICS = "This Connect worker has no plugin metrics";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path dir;
    private static EmbeddedKafkaCluster kafka;
    private static EmbeddedPg.TestDatabase db;
    private static Path pluginPath;

    @BeforeAll
    static void start() throws Exception {
        dir = Build.repoDir().resolve("pgque-plugin-tests/target/connect-versions");
        Samples.deleteTree(dir);
        pluginPath = Files.createDirectories(dir.resolve("plugins"));
        for (PluginArchive archive : PluginArchive.both()) {
            archive.unpackInto(pluginPath);
        }
        kafka = Samples.startOneBroker();
        db = EmbeddedPg.newDatabase("connect_versions").installEngine();
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    /**
     * @param line a supported line: a folder {@code connect-<line>} of pgque-connect-runtimes, or
     *             "current" for the release the project builds against (this JVM's class path)
     */
    @ParameterizedTest(name = "Kafka Connect {0}")
    @ValueSource(strings = {"3.6", "3.9", "4.0", "current"})
    void bothPluginsMoveKeyedRecordsThroughAWorkerOfThisRelease(String line) throws Exception {
        String version = line.equals("current") ? Build.kafkaVersion() : runtimeVersion(line);
        String cluster = "v" + version.replace('.', '-');
        int port = WorkerProcess.freePort();
        Path file = WorkerFile.writeForCluster(Build.repoDir().resolve("config/connect-distributed.properties"), Map.of(
                "bootstrap.servers", kafka.bootstrapServers(),
                "plugin.path", pluginPath.toString(),
                "listeners", "http://127.0.0.1:" + port,
                "rest.advertised.host.name", "127.0.0.1"), cluster, dir.resolve(cluster + ".properties"));
        String classpath = line.equals("current") ? WorkerProcess.classpathOfThisJvm()
                : runtimeDir(line).toString() + "/*";
        try (WorkerProcess worker = WorkerProcess.start(cluster, file, port, classpath, loggingOptions())) {
            Samples.await(START_TIMEOUT, worker::ready, () -> worker + " not ready; see " + worker.log());
            assertTrue(Files.readString(worker.log()).contains(version),
                    "the worker runs Kafka " + version + "; see " + worker.log());
            roundTrip(cluster, new ConnectRest(worker.rest()));

            String log = Files.readString(worker.log());
            assertFalse(log.contains("NoSuchMethodError") || log.contains("NoClassDefFoundError"),
                    "no missing API reached a task; see " + worker.log());
            boolean hasPluginMetrics = compare(version, "4.1") >= 0;
            // Each plugin has a class loader of its own, so each says it once.
            assertEquals(hasPluginMetrics ? 0 : 2, occurrences(log, NO_PLUGIN_METRICS),
                    "one log line per plugin says the metrics are off, only where the worker has none; see " + worker.log());
        }
    }

    /** Records into the sink's topic, through the queue, out of the source's topic: all of them, each key in order. */
    private static void roundTrip(String cluster, ConnectRest rest) throws Exception {
        String queue = cluster.replace('-', '_');
        Map<String, String> sink = Samples.connector("pgque-sink.json", db.jdbcUrl());
        Map<String, String> source = Samples.connector("pgque-source.json", db.jdbcUrl());
        String sinkName = cluster + "-sink";
        String sourceName = cluster + "-source";
        String in = cluster + "-in";
        String out = cluster + "-out";
        sink.remove("name");
        source.remove("name");
        sink.put("topics", in);
        sink.put("pgque.queue", queue);
        sink.put("errors.deadletterqueue.topic.name", in + "-dlq");
        source.put("pgque.queue", queue);
        source.put("pgque.consumer", sourceName);
        source.put("topic", out);
        kafka.createTopic(in, PARTITIONS);
        kafka.createTopic(out, PARTITIONS);
        kafka.createTopic(in + "-dlq", 1); // one broker: one replica
        PgQue.using(db.superuser()).queues().create(queue);

        // The source first: a consumer sees the events sent after it subscribed.
        put(rest, sourceName, source);
        Samples.await(START_TIMEOUT, () -> rest.runningTasks(sourceName).size() == Integer.parseInt(source.get("tasks.max")),
                () -> sourceName + " tasks not running: " + rest.runningTasks(sourceName));
        put(rest, sinkName, sink);
        Samples.await(START_TIMEOUT, () -> rest.runningTasks(sinkName).size() == Integer.parseInt(sink.get("tasks.max")),
                () -> sinkName + " tasks not running: " + rest.runningTasks(sinkName));

        Map<String, Integer> sent = new HashMap<>();
        try (KafkaProducer<byte[], byte[]> producer = kafka.createProducer(Map.of())) {
            for (int seq = 0; seq < PER_KEY; seq++) {
                for (int k = 0; k < KEYS; k++) {
                    String key = "key-" + k;
                    String value = "{\"key\":\"" + key + "\",\"seq\":" + seq + "}";
                    producer.send(new ProducerRecord<>(in, key.getBytes(StandardCharsets.UTF_8),
                            value.getBytes(StandardCharsets.UTF_8))).get();
                    sent.merge(key, 1, Integer::sum);
                }
            }
        }
        Map<String, List<Integer>> received = read(out, KEYS * PER_KEY);
        KeyOrder.assertFirstDeliveriesInOrder(received, sent);
        // Still running after the traffic: no task failed on the way.
        assertEquals(Integer.parseInt(sink.get("tasks.max")), rest.runningTasks(sinkName).size());
        assertEquals(Integer.parseInt(source.get("tasks.max")), rest.runningTasks(sourceName).size());
    }

    /** Creates the connector, trying again while the worker is rebalancing (409) or still starting. */
    private static void put(ConnectRest rest, String name, Map<String, String> config) throws InterruptedException {
        List<String> failures = new ArrayList<>();
        Samples.await(START_TIMEOUT, () -> {
            try {
                rest.putConnector(name, config);
                return true;
            } catch (IllegalStateException e) {
                failures.add(e.getMessage());
                return false;
            }
        }, () -> "cannot create " + name + ": " + failures.subList(Math.max(0, failures.size() - 3), failures.size()));
    }

    /** Per key, the sequence numbers in arrival order, once {@code expected} distinct records arrived. */
    private static Map<String, List<Integer>> read(String topic, int expected) {
        Map<String, List<Integer>> byKey = new HashMap<>();
        long deadline = System.nanoTime() + DELIVERY_TIMEOUT.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.createConsumer(Map.of(
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"))) {
            List<TopicPartition> partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(topic, p)).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (distinct(byKey) < expected) {
                assertTrue(System.nanoTime() < deadline, "only " + distinct(byKey) + " of " + expected
                        + " records reached " + topic + ": " + byKey);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    JsonNode value = JSON.readTree(record.value());
                    String key = value.path("key").asText();
                    assertEquals(key, new String(record.key(), StandardCharsets.UTF_8), "the record key is the event's key");
                    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(value.path("seq").asInt());
                }
            }
            return byKey;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long distinct(Map<String, List<Integer>> byKey) {
        return byKey.values().stream().mapToLong(seqs -> seqs.stream().distinct().count()).sum();
    }

    /** The runtime folder pgque-connect-runtimes made for {@code line}. */
    private static Path runtimeDir(String line) {
        Path runtime = Path.of(Build.required("pgque.connect.runtimes")).resolve("connect-" + line)
                .resolve("target/runtime").toAbsolutePath().normalize();
        if (!Files.isDirectory(runtime)) {
            throw new IllegalStateException("no Connect runtime at " + runtime + ": build it first (./mvnw verify, "
                    + "or ./mvnw -pl pgque-plugin-tests -am verify, which packages pgque-connect-runtimes)");
        }
        return runtime;
    }

    /** The release in a runtime folder, from its connect-runtime jar's name. */
    private static String runtimeVersion(String line) throws IOException {
        try (Stream<Path> jars = Files.list(runtimeDir(line))) {
            return jars.map(p -> p.getFileName().toString())
                    .filter(n -> n.matches("connect-runtime-\\d+\\.\\d+\\.\\d+\\.jar"))
                    .map(n -> n.substring("connect-runtime-".length(), n.length() - ".jar".length()))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no connect-runtime jar in " + runtimeDir(line)));
        }
    }

    /**
     * Older releases log through reload4j (3.x) or Log4j 2 (4.x), which read no configuration of
     * ours by default: one file for each, INFO to the console, which the worker's log file takes.
     */
    private static List<String> loggingOptions() throws IOException {
        Path log4j = dir.resolve("log4j.properties");
        Files.writeString(log4j, "log4j.rootLogger=INFO, stdout\n"
                + "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
                + "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
                + "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n");
        Path log4j2 = dir.resolve("log4j2.properties");
        Files.writeString(log4j2, "rootLogger.level=INFO\nrootLogger.appenderRef.stdout.ref=STDOUT\n"
                + "appender.stdout.type=Console\nappender.stdout.name=STDOUT\n"
                + "appender.stdout.layout.type=PatternLayout\nappender.stdout.layout.pattern=[%d] %p %m (%c)%n\n");
        return List.of("-Dlog4j.configuration=file:" + log4j, "-Dlog4j2.configurationFile=" + log4j2);
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + part.length())) {
            count++;
        }
        return count;
    }

    /** Compares dotted release numbers by their first two parts. */
    private static int compare(String version, String other) {
        String[] a = version.split("\\.");
        String[] b = other.split("\\.");
        int major = Integer.compare(Integer.parseInt(a[0]), Integer.parseInt(b[0]));
        return major != 0 ? major : Integer.compare(Integer.parseInt(a[1]), Integer.parseInt(b[1]));
    }
}
