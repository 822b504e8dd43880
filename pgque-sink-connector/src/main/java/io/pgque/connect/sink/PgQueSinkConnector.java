package io.pgque.connect.sink;

import io.pgque.connect.sink.config.PgQueSinkConfig;
import io.pgque.connect.sink.config.SinkConfigValidator;
import io.pgque.connect.sink.validate.LiveChecks;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka topics into PgQue queues. The connector only checks the configuration and hands it to
 * the tasks; every task does the same work on the partitions Connect assigns it.
 */
public final class PgQueSinkConnector extends SinkConnector {

    private static final Logger log = LoggerFactory.getLogger(PgQueSinkConnector.class);

    private Map<String, String> props;

    @Override
    public String version() {
        return SinkVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        PgQueSinkConfig config = new PgQueSinkConfig(props);
        this.props = new HashMap<>(props);
        log.info("Starting PgQue sink connector: {}, delivery {}", config.queueRouting(), config.deliveryGuarantee());
    }

    @Override
    public Class<? extends Task> taskClass() {
        return PgQueSinkTask.class;
    }

    /**
     * Every task gets the same configuration plus its index (for its pool's name); Connect
     * spreads the topic partitions among them.
     */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> config = new HashMap<>(props);
            config.put(PgQueSinkTask.TASK_INDEX, Integer.toString(i));
            configs.add(config);
        }
        return configs;
    }

    @Override
    public void stop() {
        log.info("Stopping PgQue sink connector");
    }

    @Override
    public ConfigDef config() {
        return PgQueSinkConfig.configDef();
    }

    /**
     * Each key on its own (ConfigDef), then the rules across keys, then the live database (within
     * connection.timeout.ms); each error filed under the key to change.
     */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        SinkConfigValidator.addTo(result, connectorConfigs);
        LiveChecks.addTo(result, connectorConfigs);
        return result;
    }
}
