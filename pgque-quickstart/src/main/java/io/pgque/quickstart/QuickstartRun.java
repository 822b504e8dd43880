package io.pgque.quickstart;

import io.pgque.quickstart.connect.ConfigDirectory;
import io.pgque.quickstart.connect.ConnectRestClient;
import io.pgque.quickstart.connect.ConnectWorker;
import io.pgque.quickstart.connect.ConnectorConfigFile;
import io.pgque.quickstart.connect.ConnectorDefinition;
import io.pgque.quickstart.connect.Placeholders;
import io.pgque.quickstart.kafka.ConsumerGroupProgress;
import io.pgque.quickstart.kafka.EmbeddedKafka;
import io.pgque.quickstart.kafka.Topics;
import io.pgque.quickstart.postgres.Database;
import io.pgque.quickstart.postgres.EmbeddedDatabase;
import io.pgque.quickstart.postgres.EngineSetup;
import io.pgque.quickstart.postgres.SlotMonitor;
import io.pgque.quickstart.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
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
    static final String INPUT_TOPIC = "file-events";
    static final String OUTPUT_TOPIC = "file-events-out";
    static final int INPUT_PARTITIONS = 4;
    /** Generous for a first run on a busy 2-core machine; normal starts take seconds. */
    private static final Duration STARTUP_LIMIT = Duration.ofSeconds(120);

    private final QuickstartOptions options;
    private final Services services = new Services();
    private final long startNanos = System.nanoTime();
    private final int restPort;
    private Endpoints endpoints;

    /** Where things listen, for the user to poke at after the report. */
    record Endpoints(String restUrl, String bootstrapServers, Database database, String queue,
                     String inputTopic, String outputTopic, List<String> connectors) {
    }

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
        ConnectWorker worker = services.add("Connect worker", ConnectWorker.start(bootstrapServers, restPort, options.bootstrapServers().isEmpty()));
        ConnectRestClient rest = new ConnectRestClient(worker.restUrl());

        Placeholders placeholders = new Placeholders(Map.of(
                "PGQUE_JDBC_URL", database.jdbcUrl(),
                "PGQUE_DB_USER", database.user(),
                "PGQUE_DB_PASSWORD", database.password(),
                "KAFKA_BOOTSTRAP_SERVERS", bootstrapServers,
                "INPUT_TOPIC", INPUT_TOPIC,
                "OUTPUT_TOPIC", OUTPUT_TOPIC,
                "PGQUE_SLOTS", Integer.toString(options.slots())));
        ConnectorDefinition sink = ConnectorConfigFile.read(configDir.resolve(ConfigDirectory.SINK_FILE), placeholders);
        ConnectorDefinition source = ConnectorConfigFile.read(configDir.resolve(ConfigDirectory.SOURCE_FILE), placeholders);
        String queue = sink.require("pgque.queue");
        if (!queue.equals(source.require("pgque.queue"))) {
            throw new IllegalStateException("the sink writes queue '" + queue + "' but the source reads '"
                    + source.require("pgque.queue") + "'; the demo needs them to be the same queue");
        }
        String consumer = source.get("pgque.consumer", source.name());
        int slots = Integer.parseInt(source.require("pgque.slots"));

        DataSource dataSource = database.dataSource();
        EngineSetup engine = new EngineSetup(dataSource);
        LOG.info("PgQue engine {} installed; preparing queue '{}'", engine.installEngine(), queue);
        engine.prepareQueue(queue);
        engine.checkSlotCount(queue, consumer, slots);

        Admin admin = services.add("Kafka admin client", Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "pgque-quickstart-admin")));
        Topics topics = new Topics(admin);
        String inputTopic = sink.require("topics");
        String outputTopic = source.require("topic");
        topics.ensure(inputTopic, INPUT_PARTITIONS);
        topics.ensure(outputTopic, slots);
        // made here so it gets the cluster's replication factor; Connect would ask for 3 replicas
        String deadLetters = sink.get("errors.deadletterqueue.topic.name", "");
        if (!deadLetters.isEmpty()) {
            topics.ensure(deadLetters, 1);
        }

        rest.awaitReady(STARTUP_LIMIT);
        requirePlugins(rest);
        for (ConnectorDefinition c : List.of(sink, source)) {
            rest.deploy(c, STARTUP_LIMIT);
        }
        int sinkTasks = Math.min(Integer.parseInt(sink.get("tasks.max", "1")), topics.partitions(inputTopic));
        int sourceTasks = Math.min(Integer.parseInt(source.get("tasks.max", "1")), slots);
        rest.awaitRunning(sink.name(), sinkTasks, STARTUP_LIMIT);
        rest.awaitRunning(source.name(), sourceTasks, STARTUP_LIMIT);
        LOG.info("Sink '{}' ({} tasks) and source '{}' ({} tasks over {} slots) are running, {} s after start",
                sink.name(), sinkTasks, source.name(), sourceTasks, slots,
                String.format("%.1f", (System.nanoTime() - startNanos) / 1e9));

        endpoints = new Endpoints(worker.restUrl().toString(), bootstrapServers, database, queue, inputTopic,
                outputTopic, List.of(sink.name(), source.name()));
        DemoRun.Pipeline pipeline = new DemoRun.Pipeline(bootstrapServers, inputTopic, outputTopic,
                topics.partitions(outputTopic),
                new ConsumerGroupProgress(admin, "connect-" + sink.name(), inputTopic),
                new SlotMonitor(dataSource, queue, consumer, slots), rest, List.of(sink.name(), source.name()));
        LOG.info("Sending {} events of {} tenants to '{}' at {}; reading them back from '{}'", options.events(),
                options.tenants(), inputTopic, options.rate() == 0 ? "full speed" : options.rate() + " events/s", outputTopic);
        DemoRun demo = services.add("demo producer and verifier", new DemoRun(pipeline, options.events(), options.tenants(), options.rate()));
        try {
            return demo.run();
        } finally {
            demo.close();
        }
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

    @Override
    public void close() {
        services.close();
    }
}
