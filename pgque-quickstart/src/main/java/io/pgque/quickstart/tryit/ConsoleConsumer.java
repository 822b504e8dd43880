/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.tryit;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * {@code consume TOPIC}: prints each record as its key, its value and its headers, separated by
 * tabs. Reads every partition directly, without a consumer group, so it leaves nothing behind in
 * the cluster and sees records from the moment it says it is reading.
 */
final class ConsoleConsumer {

    /** Said on the error stream once the start positions are fixed: records sent after it are seen. */
    static final String READING = "Reading ";
    /** As long as the producer's metadata wait: a quickstart on a busy machine can take that long. */
    private static final Duration TOPIC_LOOKUP = Duration.ofSeconds(60);

    private ConsoleConsumer() {
    }

    /** @return 0 after {@code --max-records} records or an interrupt, 1 when the topic cannot be read */
    static int run(TryItOptions options, PrintStream out, PrintStream err) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers(),
                ConsumerConfig.CLIENT_ID_CONFIG, "pgque-quickstart-consume",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = partitions(consumer, options.topic());
            if (partitions.isEmpty()) {
                err.println("error: topic " + options.topic() + " does not exist at " + options.bootstrapServers());
                return 1;
            }
            consumer.assign(partitions);
            if (options.fromBeginning()) {
                consumer.seekToBeginning(partitions);
            } else {
                consumer.seekToEnd(partitions);
            }
            // resolve the positions now, so that "reading" is true when it is said
            partitions.forEach(consumer::position);
            err.println(READING + options.topic() + " (" + partitions.size() + " partitions) at "
                    + options.bootstrapServers() + " from " + (options.fromBeginning() ? "the beginning" : "now on")
                    + "; each record as key, value, headers. Ctrl-C stops.");
            print(consumer, options.maxRecords().orElse(Long.MAX_VALUE), out);
            return 0;
        }
    }

    /** Prints records until {@code max} were printed or the thread is interrupted. */
    private static void print(KafkaConsumer<byte[], byte[]> consumer, long max, PrintStream out) {
        long seen = 0;
        try {
            while (seen < max) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    out.println(format(record));
                    if (++seen == max) {
                        break;
                    }
                }
                out.flush();
            }
        } catch (InterruptException e) {
            // asked to stop: the consumer throws with the interrupt flag set, which would make
            // its close() fail noisily; clear it, as the stop has been taken
            Thread.interrupted();
        }
    }

    /** {@code key<TAB>value<TAB>name=value,name=value}; "null" for a missing key or value. */
    static String format(ConsumerRecord<byte[], byte[]> record) {
        List<String> headers = new ArrayList<>();
        for (Header header : record.headers()) {
            headers.add(header.key() + "=" + text(header.value()));
        }
        return text(record.key()) + "\t" + text(record.value()) + "\t" + String.join(",", headers);
    }

    private static String text(byte[] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    private static List<TopicPartition> partitions(KafkaConsumer<?, ?> consumer, String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, TOPIC_LOOKUP);
        List<TopicPartition> partitions = new ArrayList<>();
        if (infos != null) {
            for (PartitionInfo info : infos) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
        }
        return partitions;
    }
}
