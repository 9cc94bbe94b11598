package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TraceTest {
    private static final TraceEvent EVENT = TraceEvent.of("rxFpdu");

    @Test
    void levelNRecordsLevelsOneToNAndLevelZeroNothing(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withTraceRingBytes(1 << 16))) {
            TraceComponent rx = ras.trace().component("iwarp.rx");
            assertThat(rx.level()).as("default level: errors").isEqualTo(TraceLevel.ERROR);
            for (int setting = 0; setting <= TraceLevel.MAX; setting++) {
                rx.setLevel(setting);
                for (int level = 1; level <= TraceLevel.MAX; level++) {
                    if (rx.enabled(level)) {
                        rx.record(level, EVENT, setting, level, 0, 0, "lvl");
                    }
                }
            }
            List<TraceRecord> records = ras.trace().records();
            for (int setting = 0; setting <= TraceLevel.MAX; setting++) {
                int s = setting;
                assertThat(records.stream().filter(r -> r.a() == s).mapToInt(TraceRecord::level))
                        .as("levels recorded at setting %d", setting)
                        .containsExactlyElementsOf(IntStream.rangeClosed(1, s).boxed().toList());
            }
            assertThatThrownBy(() -> rx.record(0, EVENT, 0, 0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> rx.setLevel(10)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void recordsCarryTimeThreadComponentEventNumbersAndText(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            ras.trace().component("iwarp.tx");
            TraceComponent cm = ras.trace().component("iwarp.cm");
            long before = System.currentTimeMillis() * 1_000_000L;
            cm.record(TraceLevel.RARE, TraceEvent.of("connect"), 1, 2, 3, 4, "peer 127.0.0.1:4791 ok \u00e9" + "x".repeat(60));
            long after = (System.currentTimeMillis() + 1) * 1_000_000L;
            TraceRecord r = reader.traceRecords().getFirst();
            assertThat(r.component()).isEqualTo("iwarp.cm");
            assertThat(r.event()).isEqualTo("connect");
            assertThat(r.level()).isEqualTo(TraceLevel.RARE);
            assertThat(r.threadId()).isEqualTo(Thread.currentThread().threadId());
            assertThat(List.of(r.a(), r.b(), r.c(), r.d())).containsExactly(1L, 2L, 3L, 4L);
            assertThat(r.text()).hasSize(RasFileDescriptor.MAX_TRACE_TEXT_LENGTH).startsWith("peer 127.0.0.1:4791 ok ?x");
            assertThat(r.epochNanos()).isBetween(before - 5_000_000L, after + 5_000_000L);
            assertThat(reader.traceLevels()).containsExactly(new TraceLevelEntry(0, "iwarp.tx", 1), new TraceLevelEntry(1, "iwarp.cm", 1));
        }
    }

    @Test
    void ringOverwritesTheOldestAndReadsOldestToNewest(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            int capacity = 4096 / RasFileDescriptor.TRACE_RECORD_LENGTH;
            TraceComponent qp = ras.trace().component("verbs.qp");
            int total = capacity * 3 + 5;
            for (int i = 0; i < total; i++) {
                qp.record(TraceLevel.ERROR, EVENT, i, 0);
            }
            List<TraceRecord> records = ras.trace().records();
            assertThat(records).hasSize(capacity);
            assertThat(records).extracting(TraceRecord::a)
                    .containsExactlyElementsOf(IntStream.range(total - capacity, total).mapToObj(i -> (long) i).toList());
            assertThat(records).extracting(TraceRecord::sequence).isSorted();
        }
    }

    @Test
    void levelSetFromOutsideIsSeenAfterTheNextRefresh(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            TraceComponent rx = ras.trace().component("iwarp.rx");
            assertThat(rx.enabled(TraceLevel.INTERNALS)).isFalse();
            reader.setTraceLevel("iwarp.rx", TraceLevel.INTERNALS);
            assertThat(rx.enabled(TraceLevel.INTERNALS)).as("cached until the duty refreshes").isFalse();
            ras.trace().refresh();
            assertThat(rx.enabled(TraceLevel.INTERNALS)).isTrue();
            assertThat(rx.enabled(TraceLevel.HOT_ENTRY_EXIT)).isFalse();
            assertThat(ras.trace().level("iwarp.rx")).isEqualTo(5);
            assertThat(reader.traceLevels()).containsExactly(new TraceLevelEntry(0, "iwarp.rx", 5));
            assertThatThrownBy(() -> reader.setTraceLevel("iwarp.nope", 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("iwarp.rx");
            assertThatThrownBy(() -> reader.setTraceLevel("iwarp.rx", -1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void dutyThreadPicksUpALevelSetFromOutsideWithinASecond(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withDutyIntervalMs(100));
             RasReader reader = RasReader.open(ras.path())) {
            TraceComponent tx = ras.trace().component("iwarp.tx");
            reader.setTraceLevel("iwarp.tx", TraceLevel.HOT_INTERNALS);
            Await.until(java.time.Duration.ofSeconds(1), "iwarp.tx at level 8", () -> tx.enabled(TraceLevel.HOT_INTERNALS));
            reader.setTraceLevel("iwarp.tx", TraceLevel.OFF);
            Await.until(java.time.Duration.ofSeconds(1), "iwarp.tx off", () -> !tx.enabled(TraceLevel.ERROR));
        }
    }

    @Test
    void aLevelOutsideZeroToNineInTheFileIsCorruption(@TempDir Path dir) throws java.io.IOException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            ras.trace().component("iwarp.cm");
            long table;
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(ras.path(),
                    java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer entry = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder());
                channel.read(entry, RasFileDescriptor.SECTION_TABLE_OFFSET
                        + (long) RasSection.TRACE_LEVELS.ordinal() * RasFileDescriptor.SECTION_TABLE_ENTRY_LENGTH);
                table = entry.getLong(0);
                channel.write(java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder()).putInt(0, 77),
                        table + RasFileDescriptor.SECTION_HEADER_LENGTH);
            }
            assertThatThrownBy(() -> ras.trace().refresh()).isInstanceOfSatisfying(CorruptStructureException.class, e -> {
                assertThat(e.structure()).isEqualTo("trace level table of " + ras.path());
                assertThat(e.found()).isEqualTo("77");
            });
        }
    }

    @Test
    void componentsAreRegisteredOnceAndNamesAndCapacityChecked(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withTraceComponentCapacity(2))) {
            Trace trace = ras.trace();
            assertThat(trace.component("a.b")).isSameAs(trace.component("a.b"));
            trace.component("c");
            assertThatThrownBy(() -> trace.component("d")).isInstanceOf(IllegalStateException.class).hasMessageContaining("full");
            assertThatThrownBy(() -> trace.component("Upper")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> trace.setLevel("zzz", 1)).isInstanceOf(IllegalArgumentException.class);
            trace.setLevel("c", 9);
            assertThat(trace.levels()).extracting(TraceLevelEntry::level).containsExactly(1, 9);
        }
    }

    @Test
    void disabledCheckAndRecordAllocateNothing(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            TraceComponent tx = ras.trace().component("iwarp.tx");
            tx.setLevel(TraceLevel.HOT_ENTRY_EXIT);
            long[] sink = new long[1];
            long bytes = Allocations.minimumBytes(() -> {
                for (int i = 0; i < 200_000; i++) {
                    if (tx.enabled(TraceLevel.HOT_INTERNALS)) {
                        sink[0]++;
                    }
                    if (tx.enabled(TraceLevel.HOT_ENTRY_EXIT)) {
                        tx.record(TraceLevel.HOT_ENTRY_EXIT, EVENT, i, 2, 3, 4, "post send");
                    }
                }
            }, 20, 10);
            assertThat(bytes).as("bytes allocated by 400k checks and 200k records after warm-up").isZero();
            assertThat(sink[0]).isZero();
        }
    }
}
