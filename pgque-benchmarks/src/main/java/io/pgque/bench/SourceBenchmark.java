/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.bench;

import io.pgque.client.Batch;
import io.pgque.client.Consumer;
import io.pgque.client.Event;
import io.pgque.client.Message;
import io.pgque.client.PgQue;
import io.pgque.connect.source.PgQueSourceConnector;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.storage.StringConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The source connector, queue to Kafka, beside a hand-written bridge measured in the same run on
 * the same database and broker: throughput for N = 1, 4 and 8 slots (one task per slot) over a
 * pre-loaded, pre-ticked queue, and end-to-end latency from {@code send} to a Kafka consumer at a
 * steady producer rate, with the connector's own ticker.
 *
 * <p>Throughput is also measured with {@code pgque.delivery.guarantee=exactly_once} at N = 4, to
 * price one Kafka transaction per PgQue batch. Such a connector needs a worker with
 * {@code exactly.once.source.support=enabled}, and such a worker makes every source task
 * transactional, so those runs go to a second broker and worker in this JVM, set up like the
 * first apart from that one setting.
 *
 * <p>Throughput is timed by the broker, not by this program: the topics use
 * {@code LogAppendTime}, and a run lasts from the first record's append to the last one's. So
 * task start-up (pools, leases) is left out for the connector, and the bridge is timed the same
 * way.
 */
final class SourceBenchmark {

    private static final int EVENTS = 50_000;
    /** Warm-up runs per path: both keep speeding up over the first few runs as the JIT compiles them. */
    private static final int WARMUP_RUNS = 2;
    private static final int KEYS = 1_000;
    /** One tick per this many events: batches of ~1,000, split among the N slots. */
    private static final int EVENTS_PER_TICK = 1_000;
    private static final int[] SLOT_COUNTS = {1, 4, 8};
    private static final int EXACTLY_ONCE_SLOTS = 4;
    private static final int ROUNDS = 3;
    private static final int TOPIC_PARTITIONS = 8;
    private static final int LATENCY_RATE = 500;
    private static final Duration LATENCY_RUN = Duration.ofSeconds(20);
    private static final int LATENCY_SLOTS = 4;
    private static final Duration TICK_EVERY = Duration.ofMillis(100);
    private static final Duration DEADLINE = Duration.ofMinutes(5);

    private final BenchServer server;

    SourceBenchmark(BenchServer server) {
        this.server = server;
    }

    void run() throws Exception {
        try (Connection c = server.connect(); KafkaSide kafka = KafkaSide.start(false);
             KafkaSide eosKafka = KafkaSide.start(true)) {
            // The URL as the driver saw it, so the connector reaches the very same database.
            String jdbcUrl = c.getMetaData().getURL();
            // Topics made long before use: a producer's first sends to a brand-new partition can
            // bounce off a broker that has not taken up leadership yet, which would be timed.
            List<String> topics = new ArrayList<>();
            List<String> eosTopics = new ArrayList<>();
            for (int run = 0; run < WARMUP_RUNS; run++) {
                topics.addAll(List.of("warm_bridge_" + run, "warm_src_" + run));
                eosTopics.add("warm_src_eos_" + run);
            }
            for (int round = 0; round < ROUNDS; round++) {
                topics.add("bridge_r" + round);
                for (int n : SLOT_COUNTS) {
                    topics.add("src_n" + n + "_r" + round);
                }
                eosTopics.add("src_eos_n" + EXACTLY_ONCE_SLOTS + "_r" + round);
            }
            topics.addAll(List.of("lat_bridge_default", "lat_src_default", "lat_bridge_tuned", "lat_src_tuned"));
            kafka.createTopics(topics);
            eosKafka.createTopics(eosTopics);

            // JIT and connection warm-up for both paths, kept out of the figures.
            for (int run = 0; run < WARMUP_RUNS; run++) {
                bridgeThroughput(c, kafka, "warm_bridge_" + run, EVENTS);
                connectorThroughput(c, kafka, jdbcUrl, "warm_src_" + run, EXACTLY_ONCE_SLOTS, false, EVENTS);
                connectorThroughput(c, eosKafka, jdbcUrl, "warm_src_eos_" + run, EXACTLY_ONCE_SLOTS, true, EVENTS);
            }

            // Rounds interleave the rows, so a burst of load from elsewhere on the machine hits
            // one run of each, not every run of one; each row shows its median run.
            List<List<Span>> runs = new ArrayList<>();
            for (int row = 0; row <= SLOT_COUNTS.length; row++) {
                runs.add(new ArrayList<>());
            }
            List<Span> exactlyOnceRuns = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                runs.get(0).add(bridgeThroughput(c, kafka, "bridge_r" + round, EVENTS));
                for (int i = 0; i < SLOT_COUNTS.length; i++) {
                    int n = SLOT_COUNTS[i];
                    runs.get(i + 1).add(connectorThroughput(c, kafka, jdbcUrl, "src_n" + n + "_r" + round, n, false,
                            EVENTS));
                    if (n == EXACTLY_ONCE_SLOTS) {
                        // Right after its at-least-once twin, so a load drift hits both alike.
                        exactlyOnceRuns.add(connectorThroughput(c, eosKafka, jdbcUrl, "src_eos_n" + n + "_r" + round,
                                n, true, EVENTS));
                    }
                }
            }
            Timing.printHeader("Throughput: " + EVENTS + " keyed events (~" + Payload.BYTES + " B) over " + KEYS
                    + " keys, pre-loaded, one tick per " + EVENTS_PER_TICK + " events; topic of " + TOPIC_PARTITIONS
                    + " partitions; median of " + ROUNDS + " runs");
            Span bridge = Span.median(runs.get(0));
            double bridgeRate = bridge.rate();
            Timing.printRow("baseline: one loop, receive batch, send, flush, ack", bridge.count, bridge.seconds(), 0);
            for (int i = 0; i < SLOT_COUNTS.length; i++) {
                printConnectorRow(SLOT_COUNTS[i], "at_least_once", Span.median(runs.get(i + 1)), bridgeRate);
                if (SLOT_COUNTS[i] == EXACTLY_ONCE_SLOTS) {
                    printConnectorRow(EXACTLY_ONCE_SLOTS, "exactly_once", Span.median(exactlyOnceRuns), bridgeRate);
                }
            }

            System.out.println();
            System.out.printf(Locale.ROOT, "### Latency: %d ev/s for %d s, send to a Kafka consumer; ticker() every "
                    + "%d ms; connector with N = %d, tasks.max = %d%n%n", LATENCY_RATE, LATENCY_RUN.toSeconds(),
                    TICK_EVERY.toMillis(), LATENCY_SLOTS, LATENCY_SLOTS);
            Latencies.printHeader();
            Latencies defaultBridge = bridgeLatency(c, kafka, "lat_bridge_default", false, Duration.ofMillis(500));
            defaultBridge.printRow("baseline loop, queue defaults, idle poll 500 ms", null);
            connectorLatency(c, kafka, jdbcUrl, "lat_src_default", false, null)
                    .printRow("connector, queue defaults, connector defaults", defaultBridge);
            Latencies tunedBridge = bridgeLatency(c, kafka, "lat_bridge_tuned", true, Duration.ofMillis(50));
            tunedBridge.printRow("baseline loop, ticker_max_lag 100 ms, idle poll 50 ms", null);
            connectorLatency(c, kafka, jdbcUrl, "lat_src_tuned", true, Duration.ofMillis(50))
                    .printRow("connector, ticker_max_lag 100 ms, pgque.poll.interval.ms 50", tunedBridge);
        }
    }

    private static void printConnectorRow(int n, String guarantee, Span span, double bridgeRate) {
        Timing.printRow("connector, N = " + n + " slots, tasks.max = " + n + ", " + guarantee, span.count,
                span.seconds(), bridgeRate);
    }

    private Span bridgeThroughput(Connection c, KafkaSide kafka, String queue, int events) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        pgque.consumer().subscribe(queue, Bridge.CONSUMER);
        Loader.preload(c, queue, events);
        try (Connection own = server.connect(); Bridge bridge = new Bridge(own, kafka.bootstrapServers(), queue)) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (bridge.delivered() < events) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the bridge moved only " + bridge.delivered() + " of " + events);
                }
                bridge.step(Duration.ZERO);
            }
        }
        return kafka.appendSpan(queue, events);
    }

    private Span connectorThroughput(Connection c, KafkaSide kafka, String jdbcUrl, String queue, int n,
                                     boolean exactlyOnce, int events) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        // Subscribed before loading: the connector's own subscribe would start after the events.
        pgque.slotConsumer(queue, queue, n, "bench-setup").subscribe();
        Loader.preload(c, queue, events);
        Map<String, String> config = connectorConfig(jdbcUrl, queue, n);
        if (exactlyOnce) {
            // One Kafka transaction per PgQue batch, with the batch's source offset in it.
            config.put("pgque.delivery.guarantee", "exactly_once");
            config.put("exactly.once.support", "required");
            config.put("transaction.boundary", "connector");
        }
        kafka.runConnector(queue, config, n);
        Span span = kafka.appendSpan(queue, events);
        kafka.removeConnector(queue, () -> leasesReleased(c, queue));
        return span;
    }

    private Latencies bridgeLatency(Connection c, KafkaSide kafka, String queue, boolean tuned, Duration idlePoll)
            throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        tune(pgque, queue, tuned);
        pgque.consumer().subscribe(queue, Bridge.CONSUMER);
        ScheduledExecutorService ticker = daemonScheduler("bench-ticker");
        Connection tickConnection = server.connect();
        ticker.scheduleWithFixedDelay(() -> PgQue.using(tickConnection).operations().ticker(), 0,
                TICK_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        AtomicBoolean running = new AtomicBoolean(true);
        ScheduledExecutorService loop = daemonScheduler("bench-bridge");
        Future<?> bridgeDone;
        try (Connection own = server.connect(); Bridge bridge = new Bridge(own, kafka.bootstrapServers(), queue)) {
            bridgeDone = loop.submit(() -> {
                while (running.get()) {
                    bridge.step(idlePoll);
                }
                return null;
            });
            try {
                return SteadyLoad.measure(server, kafka, queue);
            } finally {
                running.set(false);
                bridgeDone.get(30, TimeUnit.SECONDS);
            }
        } finally {
            loop.shutdownNow();
            ticker.shutdownNow();
            ticker.awaitTermination(10, TimeUnit.SECONDS);
            tickConnection.close();
        }
    }

    private Latencies connectorLatency(Connection c, KafkaSide kafka, String jdbcUrl, String queue, boolean tuned,
                                       Duration pollInterval) throws Exception {
        PgQue pgque = PgQue.using(c);
        pgque.queues().create(queue);
        tune(pgque, queue, tuned);
        Map<String, String> config = connectorConfig(jdbcUrl, queue, LATENCY_SLOTS);
        config.put("pgque.ticker.enabled", "true");
        config.put("pgque.ticker.interval.ms", Long.toString(TICK_EVERY.toMillis()));
        if (pollInterval != null) {
            config.put("pgque.poll.interval.ms", Long.toString(pollInterval.toMillis()));
        }
        kafka.runConnector(queue, config, LATENCY_SLOTS);
        // Every slot claimed before the clock starts, so task start-up is not counted as latency.
        awaitCondition("all " + LATENCY_SLOTS + " slots of " + queue + " leased", () -> leasesHeld(c, queue));
        try {
            return SteadyLoad.measure(server, kafka, queue);
        } finally {
            kafka.removeConnector(queue, () -> leasesReleased(c, queue));
        }
    }

    /** Tuned: a tick as soon as the ticker runs and events wait, instead of every 500 events or 3 s. */
    private static void tune(PgQue pgque, String queue, boolean tuned) {
        if (tuned) {
            pgque.queues().setTickerMaxLag(queue, TICK_EVERY);
        }
    }

    private static Map<String, String> connectorConfig(String jdbcUrl, String queue, int n) {
        Map<String, String> config = new HashMap<>();
        config.put("name", queue);
        config.put("connector.class", PgQueSourceConnector.class.getName());
        config.put("tasks.max", Integer.toString(n));
        config.put("connection.url", jdbcUrl);
        config.put("pgque.queue", queue);
        config.put("pgque.slots", Integer.toString(n));
        config.put("topic", queue);
        config.put("pgque.metrics.log.interval.ms", "0");
        config.put("key.converter", StringConverter.class.getName());
        config.put("value.converter", StringConverter.class.getName());
        // As in config/pgque-source.json: a batch waits for its slowest record, so no lingering.
        config.put("producer.override.linger.ms", "0");
        return config;
    }

    private static boolean leasesHeld(Connection c, String consumer) {
        return countSlots(c, consumer, "lease_owner is not null") == LATENCY_SLOTS;
    }

    /** The tasks give their slots back on stop(); all free means every task has stopped. */
    private static boolean leasesReleased(Connection c, String consumer) {
        return countSlots(c, consumer, "lease_owner is not null") == 0;
    }

    private static long countSlots(Connection c, String consumer, String condition) {
        try (PreparedStatement ps = c.prepareStatement(
                "select count(*) from pgque.partition_slot_status where consumer = ? and " + condition)) {
            ps.setString(1, consumer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + DEADLINE.toSeconds() + " s waiting for " + what);
            }
            Thread.sleep(20); // how often the condition is checked, not a guess at how long it takes
        }
    }

    private static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** First and last broker append time of a topic's records, and how many there were. */
    record Span(long count, long firstAppendMs, long lastAppendMs) {
        double seconds() {
            // Millisecond timestamps: never report a zero-length run.
            return Math.max(lastAppendMs - firstAppendMs, 1) / 1000.0;
        }

        double rate() {
            return count / seconds();
        }

        static Span median(List<Span> runs) {
            List<Span> sorted = new ArrayList<>(runs);
            sorted.sort(java.util.Comparator.comparingDouble(Span::rate));
            return sorted.get(sorted.size() / 2);
        }
    }

    /** Event payloads of ~100 B: a file-store event with its sequence number and send time. */
    static final class Payload {
        static final int BYTES = of(0, 0, System.nanoTime()).length();

        private Payload() {
        }

        static String of(int seq, int key, long sentNanos) {
            return String.format(Locale.ROOT,
                    "{\"tenant\":\"tenant-%04d\",\"event\":\"FileCreated\",\"path\":\"/f/%07d.bin\",\"seq\":%d,"
                            + "\"sent\":%d}", key, seq, seq, sentNanos);
        }

        static long sentNanos(String payload) {
            int at = payload.indexOf("\"sent\":") + 7;
            return Long.parseLong(payload.substring(at, payload.indexOf('}', at)));
        }

        static String key(int key) {
            return "tenant-" + key;
        }
    }

    /** Fills a queue with keyed events, one tick per {@link #EVENTS_PER_TICK}, before anyone reads. */
    static final class Loader {
        private Loader() {
        }

        static void preload(Connection c, String queue, int events) throws SQLException {
            // Ticks come only from here while loading: a tick per send batch, all of equal size.
            PgQue.using(c).queues().setTickerMaxCount(queue, 1_000_000_000);
            List<Event> batch = new ArrayList<>(EVENTS_PER_TICK);
            for (int seq = 0; seq < events; seq++) {
                int key = seq * 7919 % KEYS;
                batch.add(Event.of("FileCreated", Payload.of(seq, key, 0)).withPartitionKey(Payload.key(key)));
                if (batch.size() == EVENTS_PER_TICK || seq == events - 1) {
                    PgQue.using(c).producer().sendBatch(queue, batch);
                    batch.clear();
                    EngineBenchmark.tick(c, queue);
                }
            }
        }
    }

    /**
     * The hand-written bridge: receive a whole batch with the plain consumer, send every event
     * with a KafkaProducer, wait for every acknowledgement, ack the batch. The producer is set up
     * as Connect sets up a source task's (acks=all, one request in flight), so the difference is
     * the connector and the framework, not the producer settings.
     */
    static final class Bridge implements AutoCloseable {
        static final String CONSUMER = "bridge";

        private final Consumer consumer;
        private final KafkaProducer<String, String> producer;
        private final String queue;
        private long delivered;

        Bridge(Connection connection, String bootstrapServers, String queue) {
            this.consumer = PgQue.using(connection).consumer();
            Map<String, Object> props = new HashMap<>();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
            this.producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
            this.queue = queue;
        }

        private static void header(ProducerRecord<String, String> record, String name, Object value) {
            if (value != null) {
                record.headers().add(name, String.valueOf(value).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }

        /** One batch across, or a rest of {@code idle} when none was ready. */
        void step(Duration idle) throws Exception {
            Optional<Batch> received = consumer.receive(queue, CONSUMER);
            if (received.isEmpty()) {
                if (!idle.isZero()) {
                    Thread.sleep(idle.toMillis()); // the bridge's poll interval, as a real loop would rest
                }
                return;
            }
            Batch batch = received.get();
            List<Future<RecordMetadata>> sends = new ArrayList<>(batch.size());
            for (Message m : batch.messages()) {
                // The same record the connector writes: key, value and its provenance headers
                // (as Connect's default header converter encodes them, as text).
                ProducerRecord<String, String> record = new ProducerRecord<>(queue, m.partitionKey(), m.payload());
                header(record, "pgque.event.id", m.msgId());
                header(record, "pgque.event.type", m.type());
                header(record, "pgque.batch.id", m.batchId());
                header(record, "pgque.slot", 0);
                header(record, "pgque.epoch", 1);
                header(record, "pgque.retry.count", m.retryCount());
                sends.add(producer.send(record));
            }
            producer.flush();
            for (Future<RecordMetadata> send : sends) {
                send.get(); // an error here must stop the bridge before the ack
            }
            consumer.ack(batch);
            delivered += batch.size();
        }

        long delivered() {
            return delivered;
        }

        @Override
        public void close() {
            producer.close(Duration.ofSeconds(10));
        }
    }

    /**
     * A steady producer into the queue and a Kafka consumer on the topic: the latency of each
     * event from just before its {@code send} to the moment the consumer has it. One JVM, so the
     * send time in the payload and the receive time come from the same {@link System#nanoTime()}.
     */
    static final class SteadyLoad {
        private static final int PER_SEND = 5;

        private SteadyLoad() {
        }

        /**
         * Measures the events sent in the first {@link #LATENCY_RUN}; the producer goes on until
         * the last of them has arrived, so they are ticked like all the others instead of
         * waiting out {@code ticker_max_lag} at the end of the run.
         */
        static Latencies measure(BenchServer server, KafkaSide kafka, String queue) throws Exception {
            int measured = (int) (LATENCY_RUN.toMillis() * LATENCY_RATE / 1000);
            long periodMicros = 1_000_000L * PER_SEND / LATENCY_RATE;
            ScheduledExecutorService producer = daemonScheduler("bench-producer");
            try (Connection c = server.connect();
                 KafkaConsumer<byte[], byte[]> reader = kafka.readerFromStart(queue)) {
                PgQue pgque = PgQue.using(c);
                int[] sent = {0};
                producer.scheduleAtFixedRate(() -> {
                    List<Event> events = new ArrayList<>(PER_SEND);
                    long now = System.nanoTime();
                    for (int i = 0; i < PER_SEND; i++) {
                        int seq = sent[0] + i;
                        int key = seq * 7919 % KEYS;
                        events.add(Event.of("FileCreated", Payload.of(seq, key, now)).withPartitionKey(Payload.key(key)));
                    }
                    pgque.producer().sendBatch(queue, events);
                    sent[0] += PER_SEND;
                }, 0, periodMicros, TimeUnit.MICROSECONDS);

                double[] millis = new double[measured];
                boolean[] seen = new boolean[measured];
                int got = 0;
                long deadline = System.nanoTime() + LATENCY_RUN.toNanos() + DEADLINE.toNanos();
                while (got < measured) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("only " + got + " of " + measured + " events reached " + queue);
                    }
                    for (ConsumerRecord<byte[], byte[]> record : reader.poll(Duration.ofMillis(50))) {
                        long arrived = System.nanoTime();
                        String payload = new String(record.value(), StandardCharsets.UTF_8);
                        int seq = seqOf(payload);
                        if (seq < measured && !seen[seq]) {
                            seen[seq] = true;
                            millis[seq] = (arrived - Payload.sentNanos(payload)) / 1e6;
                            got++;
                        }
                    }
                }
                return new Latencies(millis);
            } finally {
                producer.shutdownNow();
                producer.awaitTermination(10, TimeUnit.SECONDS);
            }
        }

        private static int seqOf(String payload) {
            int at = payload.indexOf("\"seq\":") + 6;
            return Integer.parseInt(payload.substring(at, payload.indexOf(',', at)));
        }
    }

    /** Latency percentiles of one run, printed beside a baseline run. */
    static final class Latencies {
        private final double[] sorted;

        Latencies(double[] millis) {
            this.sorted = millis.clone();
            Arrays.sort(sorted);
        }

        double percentile(double p) {
            int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(index, sorted.length - 1))];
        }

        static void printHeader() {
            System.out.printf(Locale.ROOT, "| %-62s | %7s | %8s | %8s | %8s | %11s |%n", "what", "events", "p50 ms",
                    "p99 ms", "max ms", "p99 ratio");
            System.out.println("|" + "-".repeat(64) + "|" + "-".repeat(9) + "|" + "-".repeat(10) + "|"
                    + "-".repeat(10) + "|" + "-".repeat(10) + "|" + "-".repeat(13) + "|");
        }

        void printRow(String what, Latencies baseline) {
            String ratio = baseline == null ? "-"
                    : String.format(Locale.ROOT, "%.2f", percentile(99) / baseline.percentile(99));
            System.out.printf(Locale.ROOT, "| %-62s | %7d | %8.1f | %8.1f | %8.1f | %11s |%n", what, sorted.length,
                    percentile(50), percentile(99), sorted[sorted.length - 1], ratio);
        }
    }

    /**
     * One Kafka broker and one Connect worker in this JVM, and what the benchmark asks of them:
     * topics stamped by the broker, a connector run to its tasks, the records of a topic.
     */
    static final class KafkaSide implements AutoCloseable {
        private final EmbeddedConnectCluster connect;

        private KafkaSide(EmbeddedConnectCluster connect) {
            this.connect = connect;
        }

        /** With {@code exactlyOnce}, the worker runs every source task in Kafka transactions. */
        static KafkaSide start(boolean exactlyOnce) {
            // The cluster's status assertions log an ERROR with a stack trace on every poll that
            // finds no status yet; that is expected while a connector starts and would bury the tables.
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka.connect.util.clusters.ConnectAssertions",
                    "off");
            Map<String, String> worker = new HashMap<>();
            // The connector is found through its ServiceLoader manifest, without a classpath scan.
            worker.put("plugin.discovery", "service_load");
            if (exactlyOnce) {
                worker.put("exactly.once.source.support", "enabled");
            }
            // A single broker must be able to hold the transaction log, or transactional producers
            // cannot start; set on both brokers so they differ in nothing else.
            Properties broker = new Properties();
            broker.put("transaction.state.log.replication.factor", "1");
            broker.put("transaction.state.log.min.isr", "1");
            EmbeddedConnectCluster connect = new EmbeddedConnectCluster.Builder()
                    .name(exactlyOnce ? "pgque-source-bench-eos" : "pgque-source-bench")
                    .numWorkers(1)
                    .numBrokers(1)
                    .brokerProps(broker)
                    .workerProps(worker)
                    .build();
            connect.start();
            return new KafkaSide(connect);
        }

        String bootstrapServers() {
            return connect.kafka().bootstrapServers();
        }

        /** The broker stamps each record on append, so the broker's clock times every run alike. */
        void createTopics(List<String> topics) {
            for (String topic : topics) {
                connect.kafka().createTopic(topic, TOPIC_PARTITIONS, 1,
                        Map.of("message.timestamp.type", "LogAppendTime"));
            }
        }

        void runConnector(String name, Map<String, String> config, int tasks) throws InterruptedException {
            connect.configureConnector(name, config);
            connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, tasks, name + " did not start");
        }

        void removeConnector(String name, BooleanSupplier stopped) throws InterruptedException {
            connect.deleteConnector(name);
            connect.assertions().assertConnectorDoesNotExist(name, name + " was not deleted");
            awaitCondition(name + "'s tasks to stop", stopped);
        }

        KafkaConsumer<byte[], byte[]> readerFromStart(String topic) {
            Map<String, Object> props = new HashMap<>();
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            // Committed records only; the same as uncommitted where no producer uses transactions.
            props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            KafkaConsumer<byte[], byte[]> consumer = connect.kafka().createConsumer(props);
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < TOPIC_PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            return consumer;
        }

        /**
         * Reads a topic's committed records from the start until {@code expected} have arrived.
         * Records are counted, not offsets: transaction markers take offsets too.
         */
        Span appendSpan(String topic, long expected) throws InterruptedException {
            awaitWritten(topic, expected);
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            long count = 0;
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            try (KafkaConsumer<byte[], byte[]> consumer = readerFromStart(topic)) {
                while (count < expected) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("only " + count + " of " + expected + " records reached "
                                + topic + " within " + DEADLINE.toSeconds() + " s");
                    }
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        first = Math.min(first, record.timestamp());
                        last = Math.max(last, record.timestamp());
                        count++;
                    }
                }
            }
            return new Span(count, first, last);
        }

        /**
         * Waits, asking only for end offsets, until the topic holds {@code expected} offsets: a
         * consumer fetching the records while they are written would take CPU from the writer
         * (the bridge finishes before its topic is read, so the connector must too).
         */
        private void awaitWritten(String topic, long expected) throws InterruptedException {
            try (KafkaConsumer<byte[], byte[]> consumer = readerFromStart(topic)) {
                awaitCondition(expected + " offsets in " + topic,
                        () -> consumer.endOffsets(consumer.assignment()).values().stream()
                                .mapToLong(Long::longValue).sum() >= expected);
            }
        }

        @Override
        public void close() {
            connect.stop();
        }
    }
}
