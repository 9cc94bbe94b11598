package dev.tandem.failover;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.CounterType;
import dev.tandem.ras.DumpReader;
import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasFile;
import dev.tandem.ras.RasReader;
import dev.tandem.ras.SnapshotNode;
import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceRecord;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.LinkControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fail-over shows from outside the process, through the readers {@code tandem stat}, {@code errors},
 * {@code trace} and {@code dump} use: the device's counters move as its events say, its cause is in the
 * error log once with a count, its steps are in the trace ring at the level set from outside, and a
 * dump holds each connection's paths, message ids and the fail-over in progress.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailoverRasTest {
    private static final int MESSAGES = 400;
    private static final String FAULT = "test: PCI error on the adapter in slot 3";

    private TwoNodes nodes;
    private final List<Path> dumps = new ArrayList<>();
    private RasFile file;
    private int levelBefore = -1;

    @AfterEach
    void close() throws IOException {
        try {
            if (levelBefore >= 0) {
                file.trace().setLevel("failover", levelBefore);
            }
            if (nodes != null) {
                nodes.close();
            }
        } finally {
            for (Path p : dumps) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Test
    void aFailOverIsCountedLoggedOnceTracedAndDumpedWhileItRuns() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverDevice a = nodes.a;
        FailoverDevice b = nodes.b;
        FailoverQueuePair qa = nodes.sa.failover();
        file = ProcessRas.current();
        assertThat(file).as("the adapters and fail-over devices hold the process's RAS file").isNotNull();
        levelBefore = file.trace().level("failover");
        try (RasReader outside = RasReader.open(file.path())) {
            outside.setTraceLevel("failover", TraceLevel.INTERNALS); // as `tandem trace failover=5` does
        }
        await(() -> file.trace().level("failover") == TraceLevel.INTERNALS, () -> "the level set from outside reaches the process");
        FailoverWatch wa = a.watch();
        FailoverWatch wb = b.watch();

        // the first fail-over: a's adapter under the connection fails; a dump is taken as a's REPORT goes out
        int first = qa.sendAdapter();
        AtomicReference<Object> during = new AtomicReference<>();
        a.faults.arm(FaultPoint.DURING_REPORT, () -> {
            try {
                during.set(ProcessRas.dump("failover test during report"));
            } catch (RuntimeException e) {
                during.set(e); // the monitor runs this: the fail-over goes on, the test reports it
            }
        });
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) a.adapters().get(first)).injectFatalError(FAULT));
        int second = qa.sendAdapter();
        assertThat(second).as("the connection left the failed adapter").isNotEqualTo(first);
        List<FailoverEvent> ea = new ArrayList<>(TwoNodes.events(wa));
        List<FailoverEvent> eb = new ArrayList<>();
        awaitEvents(wb, eb, FailoverEvent.Migrated.class, 1);

        assertThat(during.get()).as("the dump taken during REPORT").isInstanceOf(Path.class);
        Path duringDump = (Path) during.get();
        dumps.add(duringDump);
        try (DumpReader d = DumpReader.open(duringDump)) {
            SnapshotNode.Group c = connection(device(d, a), qa.qpNumber());
            assertThat(text(c, "sends")).as("Sends wait for the peer's MIGRATED").startsWith("waiting for the peer's MIGRATED");
            List<dev.tandem.failover.Path> failed = qa.paths.on(first);
            assertThat(failed).isNotEmpty();
            assertThat(failed).anySatisfy(p -> {
                SnapshotNode.Group g = group(c, "path", String.valueOf(p.id));
                assertThat(text(g, "status")).startsWith("dead");
                assertThat(text(g, "failed because")).contains(FAULT);
            });
        }

        Map<String, Long> ca = agreeing(a, wa, ea);
        assertThat(ca).as("a's counters after a local adapter fatal error")
                .containsEntry("fail-overs", 1L).containsEntry("fail-overs adapter fatal", 1L)
                .containsEntry("fail-overs link down", 0L).containsEntry("fail-overs connection lost", 0L)
                .containsEntry("fail-overs peer moved", 0L).containsEntry("paths down", 1L).containsEntry("paths restored", 0L)
                .containsEntry("sessions moved", 1L).containsEntry("no path left", 0L)
                .containsEntry("reports sent", count(ea, FailoverEvent.Reported.class))
                .containsEntry("reports received", count(ea, FailoverEvent.PeerReported.class))
                .containsEntry("sends re-posted", sum(ea, FailoverEvent.Moved::sendsReposted))
                .containsEntry("writes re-posted", sum(ea, FailoverEvent.Moved::writesReposted))
                .containsEntry("receives re-posted", sum(ea, FailoverEvent.Moved::receivesReposted))
                .containsEntry("receive completions rebuilt", sum(ea, FailoverEvent.Moved::rebuilt));
        long pause = pauses(ea).getFirst();
        assertThat(pause).isPositive();
        assertThat(ca).containsEntry("pause last ns", pause).containsEntry("pause max ns", pause).containsEntry("pause total ns", pause);
        await(() -> counters(a).get("stale completions dropped") == qa.staleDropped(),
                () -> "a's stale completions dropped " + counters(a) + " are its connection's " + qa.staleDropped());

        Map<String, Long> cb = counters(b);
        assertThat(cb.get("fail-overs")).as("b moved the connection once: " + eb).isOne()
                .isEqualTo(cb.get("fail-overs connection lost") + cb.get("fail-overs peer moved"));
        assertThat(ca.get("duplicates dropped")).as("no message came twice").isZero();
        assertThat(cb).containsEntry("fail-overs adapter fatal", 0L).containsEntry("paths down", 0L).containsEntry("sessions moved", 1L)
                .containsEntry("receives re-posted", sum(eb, FailoverEvent.Moved::receivesReposted))
                .containsEntry("receive completions rebuilt", sum(eb, FailoverEvent.Moved::rebuilt));
        assertThat(cb.get("receives re-posted") + cb.get("receive completions rebuilt"))
                .as("b's posted receives moved to the new path").isPositive();

        try (RasReader outside = RasReader.open(file.path())) {
            List<String> steps = outside.traceRecords().stream()
                    .filter(r -> r.component().equals("failover") && r.a() == FailoverRas.numberOf(a.name()))
                    .map(TraceRecord::event).toList();
            // the connection may see its QP fail before the monitor handles the adapter's event: path-dn comes anywhere
            assertThat(steps).as("a's fail-over in the trace ring").contains("path-dn")
                    .containsSubsequence("holding", "report", "peer-rep", "moved", "migrated");
            TraceRecord down = outside.traceRecords().stream().filter(r -> r.event().equals("path-dn") && r.level() == TraceLevel.ERROR
                    && r.a() == FailoverRas.numberOf(a.name())).findFirst().orElseThrow();
            assertThat(down.level()).isEqualTo(TraceLevel.ERROR);
            assertThat(down.b()).isEqualTo(first);
            assertThat(down.text()).startsWith("adapter " + first + " failed: ");
            assertThat(causes(outside, a)).singleElement().satisfies(e -> {
                assertThat(e.count()).isOne();
                assertThat(e.text()).startsWith("adapter " + first + ": adapter " + first + " failed: ").endsWith(FAULT);
            });
        }

        // heal, then the same fault on the other adapter: one more of each, the cause still one entry
        ((AdapterControl) a.adapters().get(first)).reset(Duration.ofSeconds(5));
        nodes.awaitAllPaths();
        await(() -> counters(a).get("paths restored") == 1L, () -> "a's adapter came back: " + counters(a));
        nodes.stream(MESSAGES, MESSAGES / 2, () -> ((AdapterControl) a.adapters().get(second)).injectFatalError(FAULT));
        ea.addAll(TwoNodes.events(wa));
        List<Long> both = pauses(ea);
        assertThat(both).hasSize(2);
        assertThat(counters(a)).containsEntry("fail-overs", 2L).containsEntry("fail-overs adapter fatal", 2L)
                .containsEntry("sessions moved", 2L).containsEntry("paths down", 2L)
                .containsEntry("pause last ns", both.get(1)).containsEntry("pause max ns", Math.max(both.get(0), both.get(1)))
                .containsEntry("pause total ns", both.get(0) + both.get(1));
        try (RasReader outside = RasReader.open(file.path())) {
            assertThat(causes(outside, a)).as("one cause for the same fault on either adapter").singleElement()
                    .satisfies(e -> {
                        assertThat(e.cause()).startsWith(a.name() + ": path down (adapter fatal): adapter # failed: ")
                                .endsWith("test: PCI error on the adapter in slot #");
                        assertThat(e.count()).isEqualTo(2);
                    });
        }

        Path after = ProcessRas.dump("failover test after");
        dumps.add(after);
        try (DumpReader d = DumpReader.open(after)) {
            SnapshotNode.Group dev = device(d, a);
            assertThat(text(dev, "node")).isEqualTo("a");
            assertThat(text(group(dev, "adapter", String.valueOf(second)), "released")).startsWith("yes");
            assertThat(text(group(dev, "adapter", String.valueOf(first)), "released")).isEqualTo("no");
            SnapshotNode.Group c = connection(dev, qa.qpNumber());
            assertThat(text(c, "sends")).isEqualTo("flowing");
            assertThat(text(c, "send path")).isEqualTo(String.valueOf(qa.paths.send));
            assertThat(qa.sendAdapter()).isEqualTo(first);
            assertThat(text(c, "side")).startsWith("connecting");
            assertThat(text(c, "peer node")).isEqualTo("b");
            assertThat(number(c, "last sent msgid")).as("a sent one Send per message").isEqualTo(nodes.sent);
            assertThat(number(c, "last reliably sent msgid")).as("all of them proven held by b").isEqualTo(nodes.sent);
            SnapshotNode.Group carrying = group(c, "path", String.valueOf(qa.paths.send));
            assertThat(text(carrying, "status")).isEqualTo("live");
            assertThat(text(carrying, "carries")).isIn("sends and receives", "sends");
            for (dev.tandem.failover.Path p : qa.paths.on(second)) {
                assertThat(text(group(c, "path", String.valueOf(p.id)), "status")).startsWith("dead");
            }
            SnapshotNode.Group cb2 = connection(device(d, b), nodes.sb.failover().qpNumber());
            assertThat(number(cb2, "last received msgid")).as("b received every message in order").isEqualTo(nodes.received);
            assertThat(text(cb2, "side")).startsWith("accepting");
        }
    }

    @Test
    void aLinkPulledUnderTheConnectionCountsAsLinkDown() throws Exception {
        nodes = new TwoNodes(2, Topology.SWITCHED);
        FailoverDevice a = nodes.a;
        file = ProcessRas.current();
        int path = nodes.sa.failover().sendAdapter();
        LinkControl link = (LinkControl) a.adapters().get(path);
        nodes.stream(MESSAGES, MESSAGES / 2, link::linkDown);
        assertThat(counters(a)).as("a's counters after its link went down")
                .containsEntry("fail-overs", 1L).containsEntry("fail-overs link down", 1L)
                .containsEntry("fail-overs adapter fatal", 0L).containsEntry("fail-overs connection lost", 0L)
                .containsEntry("sessions moved", 1L).containsEntry("no path left", 0L)
                .hasEntrySatisfying("paths down", n -> assertThat(n).isPositive());
        try (RasReader outside = RasReader.open(file.path())) {
            assertThat(outside.errors()).as("the link's cause in the error log")
                    .anyMatch(e -> e.cause().startsWith(a.name() + ": path down (link down): ") && e.count() >= 1);
        }
        link.linkUp();
    }

    // ---------------------------------------------------------------- reading from outside

    /** The fail-over counters of {@code d} in the RAS file, by label without the device's name. */
    private Map<String, Long> counters(FailoverDevice d) {
        Map<String, Long> m = new LinkedHashMap<>();
        try (RasReader outside = RasReader.open(file.path())) {
            for (CounterSnapshot c : outside.counters()) {
                if (c.typeId() == CounterType.FAILOVER.id() && c.label().startsWith(d.name() + " ")) {
                    assertThat(c.ownerKey()).isEqualTo(FailoverRas.numberOf(d.name()));
                    m.put(c.label().substring(d.name().length() + 1), c.value());
                }
            }
        }
        return m;
    }

    private static List<ErrorEntry> causes(RasReader outside, FailoverDevice d) {
        return outside.errors().stream().filter(e -> e.cause().startsWith(d.name() + ": path down (adapter fatal): ")).toList();
    }

    private static SnapshotNode.Group device(DumpReader d, FailoverDevice device) {
        return d.tree().stream().filter(n -> n instanceof SnapshotNode.Group g && g.kind().equals("failover device")
                && g.name().equals(device.name())).map(SnapshotNode.Group.class::cast).findFirst()
                .orElseThrow(() -> new AssertionError("no failover device group for " + device.name() + " in " + d.tree()));
    }

    private static SnapshotNode.Group connection(SnapshotNode.Group device, int qpNumber) {
        return group(device, "connection", "qp " + qpNumber);
    }

    private static SnapshotNode.Group group(SnapshotNode.Group in, String kind, String name) {
        return in.children().stream().filter(n -> n instanceof SnapshotNode.Group g && g.kind().equals(kind) && g.name().equals(name))
                .map(SnapshotNode.Group.class::cast).findFirst()
                .orElseThrow(() -> new AssertionError("no group " + kind + " " + name + " in " + in));
    }

    private static String text(SnapshotNode.Group in, String key) {
        return in.children().stream().filter(n -> n instanceof SnapshotNode.TextField f && f.key().equals(key))
                .map(n -> ((SnapshotNode.TextField) n).value()).findFirst()
                .orElseThrow(() -> new AssertionError("no text field '" + key + "' in " + in));
    }

    private static long number(SnapshotNode.Group in, String key) {
        return in.children().stream().filter(n -> n instanceof SnapshotNode.LongField f && f.key().equals(key))
                .mapToLong(n -> ((SnapshotNode.LongField) n).value()).findFirst()
                .orElseThrow(() -> new AssertionError("no number field '" + key + "' in " + in));
    }

    // ---------------------------------------------------------------- events

    /**
     * {@code d}'s counters once they agree with the events its watch {@code w} told (taken into {@code events}):
     * a REPORT of the peer may still come in after the move, counted and told a moment apart.
     */
    private Map<String, Long> agreeing(FailoverDevice d, FailoverWatch w, List<FailoverEvent> events) {
        AtomicReference<Map<String, Long>> last = new AtomicReference<>();
        await(() -> {
            events.addAll(TwoNodes.events(w));
            Map<String, Long> c = counters(d);
            last.set(c);
            return c.get("reports sent") == count(events, FailoverEvent.Reported.class)
                    && c.get("reports received") == count(events, FailoverEvent.PeerReported.class)
                    && c.get("sends re-posted") == sum(events, FailoverEvent.Moved::sendsReposted);
        }, () -> d.name() + "'s counters " + last.get() + " agree with its events " + events);
        return last.get();
    }

    private static long count(List<FailoverEvent> events, Class<? extends FailoverEvent> type) {
        return events.stream().filter(type::isInstance).count();
    }

    private static long sum(List<FailoverEvent> events, java.util.function.ToIntFunction<FailoverEvent.Moved> f) {
        return events.stream().filter(e -> e instanceof FailoverEvent.Moved).mapToLong(e -> f.applyAsInt((FailoverEvent.Moved) e)).sum();
    }

    private static List<Long> pauses(List<FailoverEvent> events) {
        return events.stream().filter(e -> e instanceof FailoverEvent.Migrated).map(e -> ((FailoverEvent.Migrated) e).pauseNanos()).toList();
    }

    /** Takes events from {@code w} into {@code into} until it holds {@code n} of {@code type} (bounded). */
    private static void awaitEvents(FailoverWatch w, List<FailoverEvent> into, Class<? extends FailoverEvent> type, int n) {
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (count(into, type) < n) {
            assertThat(System.nanoTime()).as("%d %s in %s", n, type.getSimpleName(), into).isLessThan(deadline);
            FailoverEvent e = w.poll(Duration.ofMillis(50));
            if (e != null) {
                into.add(e);
            }
        }
        into.addAll(TwoNodes.events(w));
    }

    private static void await(BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + TwoNodes.WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what.get()).isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1)); // each check maps the file: poll, not spin
        }
    }
}
