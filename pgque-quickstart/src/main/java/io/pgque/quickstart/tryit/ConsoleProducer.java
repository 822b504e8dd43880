/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.tryit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code produce TOPIC}: one record per line of input, the key before the first space, the value
 * after it. Each line is sent and acknowledged before the next is read, so a failure names the
 * first line that did not get through and nothing after it was sent.
 */
final class ConsoleProducer {

    private ConsoleProducer() {
    }

    /** @return 0 when every line was sent, 1 when one could not be */
    static int run(TryItOptions options, InputStream in, PrintStream out, PrintStream err) throws IOException {
        err.println("Sending to " + options.topic() + " at " + options.bootstrapServers()
                + ": type a key, a space and a value per line; Ctrl-D ends.");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers(),
                ProducerConfig.CLIENT_ID_CONFIG, "pgque-quickstart-produce",
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 0),
                new StringSerializer(), new StringSerializer());
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            int lineNumber = 0;
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                int space = line.indexOf(' ');
                String key = space < 0 ? null : line.substring(0, space);
                String value = space < 0 ? line : line.substring(space + 1);
                if (key == null) {
                    err.println("line " + lineNumber + " has no space: sending it without a key");
                }
                try {
                    RecordMetadata sent = producer.send(new ProducerRecord<>(options.topic(), key, value)).get();
                    out.println("sent line " + lineNumber + " to " + sent.topic() + " partition " + sent.partition()
                            + ", offset " + sent.offset());
                    out.flush();
                } catch (ExecutionException e) {
                    err.println("error: line " + lineNumber + " was not sent (nor anything after it): "
                            + e.getCause().getMessage());
                    return 1;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    err.println("interrupted: line " + lineNumber + " may not have been sent");
                    return 1;
                }
            }
            producer.close(Duration.ofSeconds(10));
            return 0;
        }
    }
}
