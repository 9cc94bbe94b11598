package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CountersTest {

    @Test
    void allocateUpdateAndReadFromOutside(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            Counter sent = ras.counters().allocate(7, "qp.3.bytes.sent", 3);
            Counter hwm = ras.counters().allocate(8, "qp.3.sq.high-water", 3);
            sent.increment();
            sent.add(99);
            hwm.setMax(5);
            hwm.setMax(2);
            assertThat(sent.get()).isEqualTo(100);
            assertThat(hwm.get()).isEqualTo(5);
            assertThat(reader.counters()).containsExactly(
                    new CounterSnapshot(0, 7, 3, "qp.3.bytes.sent", 100),
                    new CounterSnapshot(1, 8, 3, "qp.3.sq.high-water", 5));
            sent.set(-1);
            assertThat(reader.counters().getFirst().value()).isEqualTo(-1);
            assertThat(ras.counters().snapshot()).isEqualTo(reader.counters());
        }
    }

    @Test
    void closeReclaimsTheSlotAndTheNextAllocationReusesItFromZero(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            Counters counters = ras.counters();
            Counter a = counters.allocate(1, "a", 1);
            Counter b = counters.allocate(1, "b", 2);
            a.add(10);
            a.close();
            a.close();
            assertThat(a.isClosed()).isTrue();
            assertThat(counters.allocatedCount()).isEqualTo(1);
            assertThat(reader.counters()).extracting(CounterSnapshot::label).containsExactly("b");

            Counter c = counters.allocate(2, "c", 3);
            assertThat(c.id()).isEqualTo(a.id());
            assertThat(c.get()).isZero();
            assertThat(reader.counters()).extracting(CounterSnapshot::label, CounterSnapshot::typeId, CounterSnapshot::ownerKey)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("c", 2, 3L), org.assertj.core.groups.Tuple.tuple("b", 1, 2L));
            a.close();
            assertThat(reader.counters()).hasSize(2);
            b.close();
            c.close();
        }
    }

    @Test
    void fullFileFailsWithTheLimitInTheMessage(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withCounterCapacity(2).withCounterLimit(5))) {
            for (int i = 0; i < 5; i++) {
                ras.counters().allocate(1, "c" + i, 0);
            }
            assertThat(ras.counters().capacity()).as("three pages of 2, cut to the limit").isEqualTo(5);
            assertThatThrownBy(() -> ras.counters().allocate(1, "six", 0)).isInstanceOfSatisfying(CountersFullException.class,
                    e -> assertThat(e.capacity()).isEqualTo(5)).hasMessageContaining("all 5 counters")
                    .hasMessageContaining("RasConfig.counterLimit").hasMessageContaining("'six'");
            assertThatThrownBy(() -> ras.counters().allocate(1, " ", 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aFileOfFixedSizeNeverGrows(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withCounterCapacity(2).withCounterLimit(2))) {
            long size = Files.size(ras.path());
            ras.counters().allocate(1, "one", 0);
            ras.counters().allocate(1, "two", 0);
            assertThatThrownBy(() -> ras.counters().allocate(1, "three", 0)).isInstanceOf(CountersFullException.class)
                    .hasMessageContaining("all 2 counters");
            assertThat(Files.size(ras.path())).isEqualTo(size);
            assertThat(ras.counters().pageCount()).isOne();
        }
    }

    @Test
    void fullCountersGrowTheFileByPagesThatReadersAndDumpsSee(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader before = RasReader.open(ras.path())) {
            long fixed = Files.size(ras.path());
            long page = CounterPage.length(16);
            List<Counter> counters = new ArrayList<>();
            for (int i = 0; i < 40; i++) { // 16 in the file's own sections, 16 in page 1, 8 in page 2
                Counter c = ras.counters().allocate(9, "c" + i, i);
                c.add(1000 + i);
                counters.add(c);
            }
            assertThat(ras.counters().pageCount()).isEqualTo(3);
            assertThat(ras.counters().capacity()).isEqualTo(48);
            assertThat(Files.size(ras.path())).as("the fixed part, aligned, and two pages")
                    .isEqualTo(RasFileDescriptor.align(fixed, RasFileDescriptor.COUNTER_PAGE_ALIGNMENT) + 2 * page);
            assertThat(before.counters()).as("a reader sees the pages that were there when it attached").hasSize(16);
            try (RasReader after = RasReader.open(ras.path())) {
                List<CounterSnapshot> read = after.counters();
                assertThat(read).hasSize(40);
                for (int i = 0; i < 40; i++) {
                    assertThat(read.get(i)).isEqualTo(new CounterSnapshot(i, 9, i, "c" + i, 1000 + i));
                }
                assertThat(ras.counters().snapshot()).isEqualTo(read);
                after.verify();
            }

            counters.get(20).close(); // in page 1
            Counter reused = ras.counters().allocate(3, "reused", 77);
            assertThat(reused.id()).isEqualTo(20);
            assertThat(reused.get()).isZero();
            reused.increment();
            try (DumpReader dump = DumpReader.open(ras.dump("pages"))) {
                List<CounterSnapshot> copied = dump.ras().counters();
                assertThat(copied).hasSize(40).contains(new CounterSnapshot(20, 3, 77, "reused", 1),
                        new CounterSnapshot(39, 9, 39, "c39", 1039));
            }
        }
    }

    @Test
    void anOverwrittenPageMarkerIsNamed(@TempDir Path dir) throws IOException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            for (int i = 0; i < 17; i++) {
                ras.counters().allocate(1, "c" + i, 0);
            }
            long page1;
            try (RasReader reader = RasReader.open(ras.path())) {
                page1 = RasFileDescriptor.align(reader.segment().get(java.lang.foreign.ValueLayout.JAVA_LONG,
                        RasFileDescriptor.FILE_LENGTH_OFFSET), RasFileDescriptor.COUNTER_PAGE_ALIGNMENT);
            }
            try (FileChannel channel = FileChannel.open(ras.path(), StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap("stomped!".getBytes(StandardCharsets.US_ASCII)), page1);
            }
            assertThatThrownBy(ras::verify).isInstanceOfSatisfying(CorruptStructureException.class,
                    e -> assertThat(e.structure()).isEqualTo("counter metadata of counter page 1 of " + ras.path()));
            assertThatThrownBy(() -> ras.counters().allocate(1, "on page 1", 0)).isInstanceOf(CorruptStructureException.class);
            try (RasReader reader = RasReader.open(ras.path())) {
                assertThatThrownBy(reader::counters).isInstanceOf(CorruptStructureException.class)
                        .hasMessageContaining("counter page 1");
            }
        }
    }

    @Test
    void counterLimitIsValidated() {
        RasConfig ok = RasConfig.defaults();
        assertThat(ok.counterLimit()).isEqualTo(RasConfig.DEFAULT_COUNTER_LIMIT);
        assertThatThrownBy(() -> ok.withCounterLimit(ok.counterCapacity() - 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("counterLimit 4095 must be counterCapacity (4096");
        assertThatThrownBy(() -> ok.withCounterLimit(RasConfig.MAX_COUNTER_LIMIT + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(ok.withCounterLimit(RasConfig.MAX_COUNTER_LIMIT).counterLimit()).isEqualTo(RasConfig.MAX_COUNTER_LIMIT);
    }

    @Test
    void longLabelsAreCutAtACharacterBoundary(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            String label = "é".repeat(100);
            ras.counters().allocate(1, label, 0);
            String stored = reader.counters().getFirst().label();
            assertThat(stored).isEqualTo("é".repeat(RasFileDescriptor.MAX_COUNTER_LABEL_LENGTH / 2));
        }
    }

    @Test
    void atomicIncrementsFromSeveralThreadsAreNotLost(@TempDir Path dir) throws InterruptedException {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            Counter shared = ras.counters().allocate(1, "shared", 0);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Thread.ofPlatform().name("counter-writer-" + t).start(() -> {
                    for (int i = 0; i < 100_000; i++) {
                        shared.incrementAtomic();
                    }
                    shared.addAtomic(5);
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(shared.get()).isEqualTo(4 * 100_005L);
        }
    }

    @Test
    void incrementAllocatesNothing(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            Counter counter = ras.counters().allocate(1, "hot", 0);
            long bytes = Allocations.minimumBytes(() -> {
                for (int i = 0; i < 1_000_000; i++) {
                    counter.increment();
                    counter.add(2);
                    counter.incrementAtomic();
                }
            }, 20, 10);
            assertThat(bytes).as("bytes allocated by 3M counter updates after warm-up").isZero();
            assertThat(counter.get() % 4_000_000L).as("4 per iteration, 1M iterations per run").isZero();
        }
    }
}
