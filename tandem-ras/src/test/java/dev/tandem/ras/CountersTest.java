package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
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
    void fullFileFailsWithCapacityInTheMessage(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withCounterCapacity(2))) {
            ras.counters().allocate(1, "one", 0);
            ras.counters().allocate(1, "two", 0);
            assertThatThrownBy(() -> ras.counters().allocate(1, "three", 0)).isInstanceOf(CountersFullException.class)
                    .hasMessageContaining("all 2 counters").hasMessageContaining("'three'");
            assertThatThrownBy(() -> ras.counters().allocate(1, " ", 0)).isInstanceOf(IllegalArgumentException.class);
        }
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
