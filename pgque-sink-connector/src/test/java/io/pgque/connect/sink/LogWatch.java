/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies what the test logger prints (slf4j-simple writes to the current System.err) into a
 * buffer while it is open, so a test can wait until a component has logged something, such as
 * a task noticing an outage. The output still reaches the original stream.
 */
final class LogWatch implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

    LogWatch() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (buffer) {
                    buffer.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                synchronized (buffer) {
                    buffer.write(bytes, offset, length);
                }
                original.write(bytes, offset, length);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    boolean contains(String text) {
        synchronized (buffer) {
            return buffer.toString(StandardCharsets.UTF_8).contains(text);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
