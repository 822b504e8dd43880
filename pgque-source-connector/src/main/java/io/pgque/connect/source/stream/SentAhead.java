/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.source.stream;

import io.pgque.client.ReadAhead;

/**
 * A batch read ahead that is streaming before it is open: its first chunk went to Kafka while the
 * batch before it waits for its last acknowledgements.
 *
 * @param batch  its records' ticket, to become the reader's batch once opened
 * @param read   what was read ahead, to open it by
 * @param larger whether it holds more than the chunk already sent
 */
record SentAhead(StreamedBatch batch, ReadAhead read, boolean larger) {
}
