package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ErrorLogTest {

    private static IllegalStateException qpError(int qp) {
        return new IllegalStateException("QP " + qp + " at 0x7f3a1c moved to ERROR");
    }

    @Test
    void sameCauseIsStoredOnceWithCountAndFirstAndLastTime(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withErrorLogBytes(64 << 10)); RasReader reader = RasReader.open(ras.path())) {
            long before = System.currentTimeMillis();
            ErrorLog log = ras.errorLog();
            for (int qp = 0; qp < 3; qp++) {
                assertThat(log.record(qpError(qp))).isTrue();
            }
            long first = reader.errors().getFirst().firstMs();
            Await.until(Duration.ofSeconds(2), "the clock to tick", () -> System.currentTimeMillis() > first);
            log.record(qpError(99));
            log.record(new IllegalArgumentException("bad length 12"));

            List<ErrorEntry> errors = reader.errors();
            assertThat(errors).hasSize(2);
            ErrorEntry qp = errors.getFirst();
            assertThat(qp.cause()).startsWith("java.lang.IllegalStateException: QP # at 0x# moved to ERROR @ ")
                    .contains("ErrorLogTest.qpError:");
            assertThat(qp.count()).isEqualTo(4);
            assertThat(qp.firstMs()).isBetween(before, first);
            assertThat(qp.lastMs()).isGreaterThan(qp.firstMs());
            assertThat(qp.text()).startsWith("java.lang.IllegalStateException: QP 0 at 0x7f3a1c moved to ERROR")
                    .contains("at dev.tandem.ras.ErrorLogTest");
            assertThat(errors.get(1).count()).isEqualTo(1);
            assertThat(errors.get(1).cause()).startsWith("java.lang.IllegalArgumentException: bad length #");
            assertThat(log.distinctCount()).isEqualTo(2);
            assertThat(log.snapshot()).isEqualTo(errors);
            assertThat(reader.droppedErrors()).isZero();
        }
    }

    @Test
    void callerGivenCauseKeepsTheFirstDetail(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            ErrorLog log = ras.errorLog();
            log.record("terminate sent: DDP tagged invalid STag", "qp 4 stag 0x1200");
            log.record("terminate sent: DDP tagged invalid STag", "qp 5 stag 0x1300");
            log.record("terminate sent: DDP tagged invalid STag", new IllegalStateException("x"));
            assertThat(log.snapshot()).singleElement().satisfies(e -> {
                assertThat(e.count()).isEqualTo(3);
                assertThat(e.text()).isEqualTo("qp 4 stag 0x1200");
            });
            assertThatThrownBy(() -> log.record("", "x")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void fullLogCountsNewCausesAsDroppedButStillCountsKnownOnes(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            ErrorLog log = ras.errorLog();
            String detail = "d".repeat(1000);
            int stored = 0;
            while (log.record("cause " + stored, detail)) {
                stored++;
            }
            assertThat(stored).as("4096 bytes hold three records of 40 + 7 + 1000 bytes, padded to 1048").isEqualTo(3);
            assertThat(log.record("another new cause", "x".repeat(3000))).isFalse();
            assertThat(log.record("cause 0", "again")).isTrue();
            assertThat(reader.droppedErrors()).isEqualTo(2);
            assertThat(reader.errors()).hasSize(stored).first().extracting(ErrorEntry::count).isEqualTo(2L);
            long longest = RasFileDescriptor.ERROR_KEY_OFFSET + RasFileDescriptor.MAX_ERROR_KEY_LENGTH
                    + RasFileDescriptor.MAX_ERROR_TEXT_LENGTH;
            assertThat(longest).as("a maximal record fits the smallest log").isLessThan(4096);
        }
    }

    @Test
    void concurrentWritersStoreEachCauseOnceAndLoseNoObservation(@TempDir Path dir) throws Exception {
        int threads = 8;
        int perThread = 2_000;
        int causes = 20;
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withErrorLogBytes(64 << 10))) {
            ErrorLog log = ras.errorLog();
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Thread> writers = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                writers.add(Thread.ofPlatform().name("error-writer-" + t).start(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            log.record("cause-" + (i % causes), "detail");
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            for (Thread w : writers) {
                w.join();
            }
            assertThat(failures).isEmpty();
            List<ErrorEntry> errors = log.snapshot();
            assertThat(errors).hasSize(causes);
            assertThat(errors).extracting(ErrorEntry::cause).doesNotHaveDuplicates();
            assertThat(errors).allSatisfy(e -> assertThat(e.count()).isEqualTo((long) threads * perThread / causes));
        }
    }
}
