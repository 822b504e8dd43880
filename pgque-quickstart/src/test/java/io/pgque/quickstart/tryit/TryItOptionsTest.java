/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.quickstart.tryit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgque.quickstart.QuickstartOptions.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TryItOptionsTest {

    @Test
    void explicitBrokerAndConsumeFlags() {
        TryItOptions o = TryItOptions.parse("consume", "t", "--bootstrap-servers=h:1", "--from-beginning", "--max-records=3");
        assertEquals(new TryItOptions("consume", "t", "h:1", true, OptionalLong.of(3)), o);
    }

    @Test
    void withoutABrokerTheQuickstartsRecordedPortIsUsed(@TempDir Path dataDir) throws Exception {
        Files.writeString(dataDir.resolve(TryItOptions.KAFKA_PORT_FILE), "45678\n");
        assertEquals("127.0.0.1:45678", TryItOptions.parse("produce", "t", "--data-dir=" + dataDir).bootstrapServers());
        UsageException none = assertThrows(UsageException.class,
                () -> TryItOptions.parse("produce", "t", "--data-dir=" + dataDir.resolve("missing")));
        assertTrue(none.getMessage().contains("no --bootstrap-servers"), none.getMessage());
    }

    @Test
    void mistakesAreNamed() {
        assertMessage("produce needs a topic: produce TOPIC", "produce");
        assertMessage("--from-beginning is for consume only", "produce", "t", "--bootstrap-servers=h:1", "--from-beginning");
        assertMessage("--max-records must be a whole number above 0, got '0'", "consume", "t", "--bootstrap-servers=h:1", "--max-records=0");
        assertMessage("unknown argument '--topic' for consume", "consume", "t", "--topic");
    }

    @Test
    void badArgumentsExitWithTwoAndTheUsage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = TryIt.run(new String[] {"consume"}, InputStream.nullInputStream(), new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, exit);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: java -jar pgque-quickstart.jar produce TOPIC"));
    }

    @Test
    void aRecordPrintsAsKeyValueAndHeaders() {
        ConsumerRecord<byte[], byte[]> record = new ConsumerRecord<>("t", 0, 5, "k".getBytes(StandardCharsets.UTF_8),
                "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
        record.headers().add("pgque.slot", "2".getBytes(StandardCharsets.UTF_8));
        record.headers().add("pgque.extra2", null);
        assertEquals("k\t{\"a\":1}\tpgque.slot=2,pgque.extra2=null", ConsoleConsumer.format(record));
        assertEquals("null\tnull\t", ConsoleConsumer.format(new ConsumerRecord<>("t", 0, 6, null, null)));
    }

    private static void assertMessage(String message, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> TryItOptions.parse(args));
        assertEquals(message, e.getMessage());
    }
}
