/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart;

import io.pgque.quickstart.connect.ConfigDirectory;
import io.pgque.quickstart.connect.ConnectRestClient;
import io.pgque.quickstart.connect.ConnectWorker;
import io.pgque.quickstart.connect.ConnectorConfigFile;
import io.pgque.quickstart.connect.ConnectorDefinition;
import io.pgque.quickstart.connect.Placeholders;
import io.pgque.quickstart.connect.SecretsFile;
import io.pgque.quickstart.kafka.ConsumerGroupProgress;
import io.pgque.quickstart.kafka.EmbeddedKafka;
import io.pgque.quickstart.kafka.Topics;
import io.pgque.quickstart.postgres.Database;
import io.pgque.quickstart.postgres.EmbeddedDatabase;
import io.pgque.quickstart.postgres.EngineSetup;
import io.pgque.quickstart.postgres.SlotMonitor;
import io.pgque.quickstart.postgres.QueueTimes;
import io.pgque.quickstart.report.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One quickstart from start to report: bring up PostgreSQL, Kafka and a Connect worker (or use
 * the given ones), install the engine, deploy both connectors from {@code config/}, run the demo.
 * Everything it starts is stopped by {@link #close()}, in order.
 */
final class QuickstartRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QuickstartRun.class);

    static final String SINK_CLASS = "io.pgque.connect.sink.PgQueSinkConnector";
    static final String SOURCE_CLASS = "io.pgque.connect.source.PgQueSourceConnector";
    static final int INPUT_PARTITIONS = 4;
    /** Generous for a first run on a busy 2-core machine; normal starts take seconds. */
    private static final Duration STARTUP_LIMIT = Duration.ofSeconds(120);

    /** Where things listen, for the user to poke at after the report. */
    record Endpoints(String restUrl, String bootstrapServers, Database database, String queue, String inputTopic,
                     String outputTopic, String deadLetterTopic, String sinkName, String sourceName) {
    }

    /** The two connectors as deployed, and what the demo needs to know from their configs. */
    private record Connectors(ConnectorDefinition sink, ConnectorDefinition source) {
        String queue() {
            return sink.require("pgque.queue");
        }

        String consumer() {
            return source.get("pgque.consumer", source.name());
        }

        int slots() {
            return Integer.parseInt(source.require("pgque.slots"));
        }

        String inputTopic() {
            return sink.require("topics");
        }

        String outputTopic() {
            return source.require("topic");
        }

        String deadLetterTopic() {
            return sink.get("errors.deadletterqueue.topic.name", "");
        }
    }

    private final QuickstartOptions options;
    private final Services services = new Services();
    private final long startNanos = System.nanoTime();
    private final int restPort;
    private Endpoints endpoints;

    QuickstartRun(QuickstartOptions options) {
        this.options = options;
        this.restPort = options.restPort() == 0 ? RememberedPort.anyFree() : options.restPort();
    }

    Report run() throws Exception {
        Path dataDir = options.dataDir().toAbsolutePath();
        Files.createDirectories(dataDir);
        Path configDir = ConfigDirectory.locate(options.configDir(), Path.of(""));
        LOG.info("Data in {}; connector configs from {}", dataDir, configDir.toAbsolutePath());

        Database database = startDatabase(dataDir);
        String bootstrapServers = startKafka(dataDir);
        LOG.info("Starting a Connect worker (distributed mode, REST on port {})...", restPort);
        ConnectWorker worker = services.add("Connect worker",
                ConnectWorker.start(bootstrapServers, restPort, options.bootstrapServers().isEmpty()));
        ConnectRestClient rest = new ConnectRestClient(worker.restUrl());

        Connectors connectors = readConnectors(configDir, database, bootstrapServers,
                SecretsFile.write(dataDir, database.password()));
        prepareDatabase(database, connectors);
        Admin admin = services.add("Kafka admin client", Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "pgque-quickstart-admin")));
        Topics topics = new Topics(admin);
        prepareTopics(topics, connectors);
        deploy(rest, topics, connectors);
        LOG.info("Sink '{}' and source '{}' are running, {} s after start", connectors.sink().name(),
                connectors.source().name(), String.format(Locale.ROOT, "%.1f", (System.nanoTime() - startNanos) / 1e9));

        endpoints = new Endpoints(worker.restUrl().toString(), bootstrapServers, database, connectors.queue(),
                connectors.inputTopic(), connectors.outputTopic(), connectors.deadLetterTopic(),
                connectors.sink().name(), connectors.source().name());
        return runDemo(connectors, bootstrapServers, database, admin, topics, rest);
    }

    /** Where things listen; present once {@link #run()} got as far as the demo. */
    Endpoints endpoints() {
        return endpoints;
    }

    boolean closing() {
        return services.closing();
    }

    private Database startDatabase(Path dataDir) {
        if (options.jdbcUrl().isPresent()) {
            LOG.info("Using PostgreSQL at {}", options.jdbcUrl().get());
            return new Database(options.jdbcUrl().get(), options.dbUser(), options.dbPassword());
        }
        LOG.info("Starting an embedded PostgreSQL...");
        EmbeddedDatabase db = services.add("PostgreSQL", EmbeddedDatabase.start(dataDir));
        LOG.info("PostgreSQL is up: {}", db.database().jdbcUrl());
        return db.database();
    }

    private String startKafka(Path dataDir) throws Exception {
        if (options.bootstrapServers().isPresent()) {
            LOG.info("Using Kafka at {}", options.bootstrapServers().get());
            return options.bootstrapServers().get();
        }
        LOG.info("Starting a Kafka broker (KRaft, one node)...");
        EmbeddedKafka kafka = services.add("Kafka broker", EmbeddedKafka.start(dataDir));
        LOG.info("Kafka is up: {}", kafka.bootstrapServers());
        return kafka.bootstrapServers();
    }

    private Connectors readConnectors(Path configDir, Database database, String bootstrapServers, Path secrets)
            throws IOException {
        Placeholders placeholders = new Placeholders(Map.of(
                "PGQUE_JDBC_URL", database.jdbcUrl(),
                // the sink's file writes "jdbc:postgresql://${PGQUE_DB_ADDRESS}": host, port,
                // database and parameters
                "PGQUE_DB_ADDRESS", database.address(),
                "PGQUE_DB_USER", database.user(),
                // the files' passwords are ${file:${PGQUE_SECRETS_FILE}:...}, read by the worker
                "PGQUE_SECRETS_FILE", secrets.toString(),
                "KAFKA_BOOTSTRAP_SERVERS", bootstrapServers));
        ConnectorDefinition source = ConnectorConfigFile.read(configDir.resolve(ConfigDirectory.SOURCE_FILE), placeholders);
        if (options.slots().isPresent()) {
            // one task per slot, as in the file: the flag changes N without unbalancing the tasks
            String slots = Integer.toString(options.slots().getAsInt());
            source = source.with("pgque.slots", slots).with("tasks.max", slots);
            LOG.info("--slots={} replaces pgque.slots and tasks.max of {}", slots, ConfigDirectory.SOURCE_FILE);
        }
        Connectors c = new Connectors(
                ConnectorConfigFile.read(configDir.resolve(ConfigDirectory.SINK_FILE), placeholders), source);
        String sourceQueue = c.source().require("pgque.queue");
        if (!c.queue().equals(sourceQueue)) {
            throw new IllegalStateException("the sink writes queue '" + c.queue() + "' but the source reads '"
                    + sourceQueue + "'; the demo needs them to be the same queue");
        }
        return c;
    }

    private static void prepareDatabase(Database database, Connectors c) {
        EngineSetup engine = new EngineSetup(database.dataSource());
        LOG.info("PgQue engine {} installed; preparing queue '{}'", engine.installEngine(), c.queue());
        engine.prepareQueue(c.queue());
        engine.checkSlotCount(c.queue(), c.consumer(), c.slots());
    }

    private static void prepareTopics(Topics topics, Connectors c) throws InterruptedException, ExecutionException {
        topics.ensure(c.inputTopic(), INPUT_PARTITIONS);
        topics.ensure(c.outputTopic(), c.slots());
        // made here so it gets the cluster's replication factor; Connect would ask for 3 replicas
        if (!c.deadLetterTopic().isEmpty()) {
            topics.ensure(c.deadLetterTopic(), 1);
        }
    }

    private static void deploy(ConnectRestClient rest, Topics topics, Connectors c)
            throws TimeoutException, InterruptedException, ExecutionException {
        rest.awaitReady(STARTUP_LIMIT);
        requirePlugins(rest);
        rest.deploy(c.sink(), STARTUP_LIMIT);
        rest.deploy(c.source(), STARTUP_LIMIT);
        // a sink gets at most one task per input partition; a source at most one per slot
        int sinkTasks = Math.min(Integer.parseInt(c.sink().get("tasks.max", "1")), topics.partitions(c.inputTopic()));
        int sourceTasks = Math.min(Integer.parseInt(c.source().get("tasks.max", "1")), c.slots());
        rest.awaitRunning(c.sink().name(), sinkTasks, STARTUP_LIMIT);
        rest.awaitRunning(c.source().name(), sourceTasks, STARTUP_LIMIT);
    }

    /** Before any connector is deployed: a missing plugin would otherwise surface as a vague 500. */
    private static void requirePlugins(ConnectRestClient rest) {
        Set<String> found = rest.connectorPlugins();
        for (String needed : List.of(SINK_CLASS, SOURCE_CLASS)) {
            if (!found.contains(needed)) {
                throw new IllegalStateException("the Connect worker has no plugin " + needed
                        + "; is its module built and on the classpath (with its META-INF/services file)?");
            }
        }
    }

    private Report runDemo(Connectors c, String bootstrapServers, Database database, Admin admin, Topics topics,
                           ConnectRestClient rest) throws Exception {
        DemoRun.Pipeline pipeline = new DemoRun.Pipeline(bootstrapServers, c.inputTopic(), c.outputTopic(),
                topics.partitions(c.outputTopic()),
                new ConsumerGroupProgress(admin, "connect-" + c.sink().name(), c.inputTopic()),
                new SlotMonitor(database.dataSource(), c.queue(), c.consumer(), c.slots()),
                new QueueTimes(database.dataSource(), c.queue()), rest,
                List.of(c.sink().name(), c.source().name()));
        String rate = options.rate() == 0 ? "full speed" : options.rate() + " events/s";
        if (options.warmup() > 0) {
            // A JVM that just started interprets, then compiles, the code on the events' path: the
            // first seconds measure that, not the pipeline. Production workers run warm.
            LOG.info("Warming up: {} events through the whole pipeline at {}, not measured", options.warmup(), rate);
            Report warmup = runOnce(pipeline, options.warmup(), 0);
            if (!warmup.allArrived()) {
                LOG.warn("Only {} of {} warm-up events came through; measuring anyway", warmup.eventsOut(),
                        options.warmup());
            }
        }
        LOG.info("Sending {} events of {} tenants to '{}' at {}; reading them back from '{}' ({} slots)",
                options.events(), options.tenants(), c.inputTopic(), rate, c.outputTopic(), c.slots());
        return runOnce(pipeline, options.events(), options.warmup());
    }

    private Report runOnce(DemoRun.Pipeline pipeline, int events, int warmupEvents) throws Exception {
        DemoRun demo = services.add("demo producer and verifier",
                new DemoRun(pipeline, events, options.tenants(), options.rate(), warmupEvents));
        try {
            return demo.run();
        } finally {
            demo.close();
        }
    }

    @Override
    public void close() {
        services.close();
    }
}
