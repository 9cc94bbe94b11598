package dev.tandem.ras;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResourcesTest {
    private static final String SITE = "com.acme.App.main(App.java:42)";

    @Test
    void registeredResourceIsReadFromOutsideWithItsOwnerAndDetail(@TempDir Path dir) {
        long before = System.currentTimeMillis();
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            ResourceSlot qp = ras.resources().register("QP", 3, "iwarp0@127.0.1.1 qp 3", "app-main", SITE);
            assertThat(qp.recorded()).isTrue();
            assertThat(reader.resources()).singleElement().satisfies(e -> {
                assertThat(e.type()).isEqualTo("QP");
                assertThat(e.id()).isEqualTo(3);
                assertThat(e.name()).isEqualTo("iwarp0@127.0.1.1 qp 3");
                assertThat(e.pid()).isEqualTo(ProcessHandle.current().pid());
                assertThat(e.thread()).isEqualTo("app-main");
                assertThat(e.createdMs()).isBetween(before, System.currentTimeMillis());
                assertThat(e.callSite()).isEqualTo(SITE);
                assertThat(e.detail()).isEmpty();
            });

            qp.detail("state RTS peer 127.0.1.2:4791");
            assertThat(reader.resources()).extracting(ResourceEntry::detail).containsExactly("state RTS peer 127.0.1.2:4791");
            qp.detail("state ERROR");
            assertThat(reader.resources()).extracting(ResourceEntry::detail).containsExactly("state ERROR");
            qp.detail(null);
            assertThat(reader.resources()).extracting(ResourceEntry::detail).containsExactly("");
            assertThat(ras.resources().snapshot()).isEqualTo(reader.resources());
            assertThat(ras.resources().liveCount()).isEqualTo(1);

            qp.close();
            qp.close();
            qp.detail("after close: ignored");
            assertThat(reader.resources()).isEmpty();
            assertThat(ras.resources().liveCount()).isZero();
        }
    }

    @Test
    void listsResourcesOldestFirstAndReusesFreedSlots(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            Resources table = ras.resources();
            ResourceSlot pd = table.register("PD", 1, "iwarp0 pd 1", "main", SITE);
            ResourceSlot mr = table.register("MR", 0x1234, "iwarp0 mr 0x1234", "main", SITE);
            ResourceSlot cq = table.register("CQ", 2, "iwarp0 cq 2", "main", SITE);
            assertThat(reader.resources()).extracting(ResourceEntry::type).containsExactly("PD", "MR", "CQ");
            mr.close();
            assertThat(reader.resources()).extracting(ResourceEntry::type).containsExactly("PD", "CQ");
            for (int i = 0; i < table.capacity() - 2; i++) {
                assertThat(table.register("MW", i, "mw " + i, "main", SITE).recorded()).as("slot %d", i).isTrue();
            }
            assertThat(reader.resources()).hasSize(table.capacity());
            assertThat(reader.droppedResources()).isZero();
            pd.close();
            cq.close();
        }
    }

    @Test
    void fullTableCountsDroppedRegistrationsAndNeverThrows(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withResourceCapacity(2));
             RasReader reader = RasReader.open(ras.path())) {
            ResourceSlot first = ras.resources().register("QP", 1, "qp 1", "main", SITE);
            ras.resources().register("QP", 2, "qp 2", "main", SITE);
            ResourceSlot dropped = ras.resources().register("QP", 3, "qp 3", "main", SITE);
            ResourceSlot droppedToo = ras.resources().register("LISTENER", 4791, "listener", "main", SITE);
            assertThat(dropped.recorded()).isFalse();
            assertThat(dropped.slot()).isEqualTo(-1);
            dropped.detail("nowhere to go");
            dropped.close();
            droppedToo.close();
            assertThat(reader.droppedResources()).isEqualTo(2);
            assertThat(ras.resources().dropped()).isEqualTo(2);
            assertThat(reader.resources()).extracting(ResourceEntry::id).containsExactly(1L, 2L);

            first.close();
            assertThat(ras.resources().register("QP", 5, "qp 5", "main", SITE).recorded()).as("a freed slot is used again").isTrue();
            assertThat(reader.resources()).extracting(ResourceEntry::id).containsExactlyInAnyOrder(2L, 5L);
        }
    }

    @Test
    void longTextIsCutToItsFieldAndMarked(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir)); RasReader reader = RasReader.open(ras.path())) {
            String site = "com.example.very.long.package.name.of.the.application.Service.open(Service.java:1234)";
            String name = "adapter-with-a-rather-long-name@192.168.100.200 qp 123456 of session ä";
            ResourceSlot slot = ras.resources().register("QP", 1, name, "t".repeat(100), site);
            slot.detail("ü".repeat(100));
            ResourceEntry e = reader.resources().getFirst();
            assertThat(e.callSite()).as("call site keeps its end").startsWith("\u2026").endsWith("Service.open(Service.java:1234)");
            assertThat(bytes(e.callSite())).isLessThanOrEqualTo(RasFileDescriptor.MAX_RESOURCE_CALL_SITE_LENGTH);
            assertThat(e.name()).as("name keeps its beginning").startsWith("adapter-with-a-rather-long-name@").endsWith("\u2026");
            assertThat(bytes(e.name())).isLessThanOrEqualTo(RasFileDescriptor.MAX_RESOURCE_NAME_LENGTH);
            assertThat(e.thread()).isEqualTo("t".repeat(RasFileDescriptor.MAX_RESOURCE_THREAD_LENGTH - 3) + "\u2026");
            assertThat(e.detail()).as("cut at a character boundary").matches("ü+\u2026");
            assertThat(bytes(e.detail())).isLessThanOrEqualTo(RasFileDescriptor.MAX_RESOURCE_DETAIL_LENGTH);
        }
    }

    @Test
    void badRegistrationsAreRefusedWithTheReason(@TempDir Path dir) {
        try (RasFile ras = RasFile.create(RasFileTest.small(dir))) {
            Resources table = ras.resources();
            assertThatThrownBy(() -> table.register("QUEUEPAIR", 1, "qp", "main", SITE))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resource type 'QUEUEPAIR' must be 1..8");
            assertThatThrownBy(() -> table.register("Q P", 1, "qp", "main", SITE)).hasMessageContaining("without spaces");
            assertThatThrownBy(() -> table.register(null, 1, "qp", "main", SITE)).hasMessageContaining("resource type 'null'");
            assertThatThrownBy(() -> table.register("QP", 1, " ", "main", SITE)).hasMessageContaining("resource name is blank");
            assertThatThrownBy(() -> table.register("QP", 1, "qp", null, SITE)).hasMessageContaining("thread name is null");
            assertThatThrownBy(() -> table.register("QP", 1, "qp", "main", null)).hasMessageContaining("call site is null");
            assertThat(table.liveCount()).isZero();
        }
    }

    @Test
    void slotClosedAfterItsFileClosedDoesNothing(@TempDir Path dir) {
        RasFile ras = RasFile.create(RasFileTest.small(dir));
        ResourceSlot slot = ras.resources().register("PD", 1, "pd", "main", SITE);
        ras.close();
        slot.detail("late");
        slot.close();
        try (RasReader reader = RasReader.open(ras.path())) {
            assertThat(reader.resources()).as("post-mortem: still live in the file").extracting(ResourceEntry::name)
                    .containsExactly("pd");
        }
    }

    @Test
    @Timeout(60)
    void threadsRegisterAndCloseConcurrentlyWithoutLosingOrSharingEntries(@TempDir Path dir) throws InterruptedException {
        int threads = 4;
        int rounds = 2_000;
        try (RasFile ras = RasFile.create(RasFileTest.small(dir).withResourceCapacity(128));
             RasReader reader = RasReader.open(ras.path())) {
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            List<List<ResourceSlot>> kept = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                List<ResourceSlot> mine = new ArrayList<>();
                kept.add(mine);
                workers.add(Thread.ofPlatform().name("resources-test-" + t).start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    for (int i = 0; i < rounds; i++) {
                        ResourceSlot s = ras.resources().register("QP", id * 1_000_000L + i, "t" + id + " qp " + i,
                                Thread.currentThread().getName(), SITE);
                        s.detail("round " + i);
                        if (i % 100 == 0) {
                            mine.add(s);
                        } else {
                            s.close();
                        }
                    }
                }));
            }
            start.countDown();
            for (Thread w : workers) {
                w.join(TimeUnit.SECONDS.toMillis(30));
                assertThat(w.isAlive()).as(w.getName() + " finished").isFalse();
            }
            List<ResourceEntry> live = reader.resources();
            long expected = (long) threads * (rounds / 100);
            assertThat(live).hasSize((int) expected);
            assertThat(live).extracting(ResourceEntry::id).doesNotHaveDuplicates();
            assertThat(live).allSatisfy(e -> {
                long thread = e.id() / 1_000_000L;
                long round = e.id() % 1_000_000L;
                assertThat(e.name()).isEqualTo("t" + thread + " qp " + round);
                assertThat(e.thread()).isEqualTo("resources-test-" + thread);
                assertThat(e.detail()).isEqualTo("round " + round);
            });
            assertThat(reader.droppedResources()).isZero();
            assertThat(ras.resources().liveCount()).isEqualTo(expected);
            kept.forEach(list -> list.forEach(ResourceSlot::close));
            assertThat(reader.resources()).isEmpty();
        }
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
