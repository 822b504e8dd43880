/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.sink.offsets;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PartitionOffsetsTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);

    private static SinkRecord record(TopicPartition tp, long offset) {
        return new SinkRecord(tp.topic(), tp.partition(), null, "k", null, "v", offset, 0L,
                TimestampType.CREATE_TIME, new ConnectHeaders());
    }

    /** A record renamed by a transform: its offsets stay the consumer's, under its original coordinates. */
    private static SinkRecord renamed(TopicPartition original, long offset) {
        return record(original, offset).newRecord("renamed", 7, null, "k", null, "v", 0L);
    }

    @Test
    void recordsBelowTheStoredOffsetAreAlreadyWritten() {
        PartitionOffsets offsets = new PartitionOffsets();
        offsets.learn(List.of(A0, A1), Map.of(A0, 5L));
        List<SinkRecord> fresh = offsets.unwritten(List.of(record(A0, 4), record(A0, 5), record(A1, 0), renamed(A0, 3)));
        assertEquals(List.of(5L, 0L), fresh.stream().map(SinkRecord::kafkaOffset).toList());
        assertEquals(List.of(new OffsetMove(A1, null, 1)), offsets.moves(List.of(record(A1, 0))), "read, nothing stored");
    }

    @Test
    void movesGoFromTheKnownOffsetToOnePastTheLastRecordAndBecomeTheNextExpected() {
        PartitionOffsets offsets = new PartitionOffsets();
        offsets.learn(List.of(A0, A1), Map.of(A0, 5L));
        List<SinkRecord> put = List.of(record(A1, 0), record(A0, 5), record(A0, 6), record(A1, 1), renamed(A0, 9));
        List<OffsetMove> moves = offsets.moves(put);
        assertEquals(List.of(new OffsetMove(A1, null, 2), new OffsetMove(A0, 5L, 10)), moves);
        offsets.committed(moves);
        assertEquals(List.of(new OffsetMove(A0, 10L, 11), new OffsetMove(A1, 2L, 3)),
                offsets.moves(List.of(record(A0, 10), record(A1, 2))), "the committed offsets are the next expected ones");
    }

    @Test
    void unknownPartitionsMustBeReadBeforeAnyMove() {
        PartitionOffsets offsets = new PartitionOffsets();
        offsets.learn(List.of(A0), Map.of());
        assertEquals(Set.of(A1), offsets.unknown(List.of(record(A0, 1), record(A1, 1))));
        assertThrows(IllegalStateException.class, () -> offsets.moves(List.of(record(A1, 1))));
        offsets.forget(List.of(A0));
        assertEquals(Set.of(A0), offsets.unknown(List.of(record(A0, 1))));
    }

    @Test
    void kafkaMayCommitOnlyWhatIsStoredAndNeverBeyondWhatWasDelivered() {
        PartitionOffsets offsets = new PartitionOffsets();
        offsets.learn(List.of(A0, A1), Map.of(A0, 5L, A1, 9L));
        Map<TopicPartition, OffsetAndMetadata> committable = offsets.committable(Map.of(
                A0, new OffsetAndMetadata(7), A1, new OffsetAndMetadata(3), new TopicPartition("b", 0), new OffsetAndMetadata(4)));
        assertEquals(Map.of(A0, new OffsetAndMetadata(5), A1, new OffsetAndMetadata(3)), committable);
    }

    @Test
    void offsetsOnlyMoveForward() {
        assertThrows(IllegalArgumentException.class, () -> new OffsetMove(A0, 5L, 5));
    }
}
