package dev.tandem.provider;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.DeviceUnavailableException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.ResourceLeakException;
import dev.tandem.verbs.ResourceLimitException;
import dev.tandem.verbs.WorkCompletion;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The kit's half of an adapter on its own, under a transport with no wire: what a second provider
 * (shared memory, say) gets without writing it again — resources and their limits, owners and leak
 * reports, fatal error, reset and close, and progress driven by polling threads.
 */
class DeviceCoreTest {
    private static final AtomicInteger NAMES = new AtomicInteger();
    /** Small limits, so the one more is cheap to reach: 2 QPs, 2 CQs of depth 8, 4 STags, 1 SRQ, 2 PDs. */
    private static final DeviceAttributes SMALL = new DeviceAttributes(2, 16, 2, 8, 4, 1 << 20, 0, 4, 4, 64, 2, 1, 2);

    private final ScriptedTransport transport = new ScriptedTransport();

    private CoreOnlyDevice device(LeakMode leaks) {
        return new CoreOnlyDevice("core" + NAMES.incrementAndGet(), SMALL, leaks, transport);
    }

    @Test
    void resourcesAreTrackedWithTheirOwnersAndLabels() {
        try (CoreOnlyDevice d = device(LeakMode.STRICT); Arena arena = Arena.ofConfined()) {
            ProtectionDomain pd = d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(8);
            MemoryRegion mr = pd.registerMemory(arena.allocate(64), Access.LOCAL_WRITE);
            assertThat(d.core.liveResources()).extracting(LiveResource::kind).containsExactlyInAnyOrder("PD", "CQ", "MR");
            assertThat(d.core.liveResources()).extracting(LiveResource::name).contains(d.name() + " pd 1", d.name() + " cq 1",
                    String.format("%s mr 0x%08x", d.name(), mr.lkey()));
            // the kit's own frames (KitDevice, DeviceCore, the PD) are skipped: the call site is the application's
            assertThat(d.core.liveResources()).allSatisfy(r -> assertThat(r.owner().callSite()).as("call site of " + r.name())
                    .startsWith(DeviceCoreTest.class.getName() + ".resourcesAreTrackedWithTheirOwnersAndLabels("));
            mr.close();
            pd.close();
            cq.close();
            assertThat(d.core.liveResources()).isEmpty();
        }
        assertThat(transport.calls).containsExactly("stop true");
    }

    @Test
    void theOneMoreThanTheLimitIsRefusedBeforeTheTransportIsAsked() {
        try (CoreOnlyDevice d = device(LeakMode.STRICT)) {
            ProtectionDomain pd = d.allocateProtectionDomain();
            ProtectionDomain second = d.allocateProtectionDomain();
            assertThatThrownBy(d::allocateProtectionDomain).isInstanceOf(ResourceLimitException.class)
                    .hasMessageContaining("DeviceAttributes.maxProtectionDomains");
            CompletionQueue cq = d.createCompletionQueue(8);
            QueuePairConfig config = QueuePairConfig.of(cq);
            assertThatThrownBy(() -> pd.createQueuePair(config)).isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> pd.createQueuePair(config)).isInstanceOf(UnsupportedOperationException.class);
            assertThat(transport.calls).as("QP numbers drawn, and a failed create gives its slot back")
                    .containsExactly("createQueuePair 1", "createQueuePair 2");
            assertThat(d.core.limits().open(ResourceLimits.Kind.QUEUE_PAIR)).isZero();
            second.close();
            d.allocateProtectionDomain().close();
            cq.close();
            pd.close();
        }
    }

    @Test
    void closingWithResourcesOpenReportsThemAndStrictModeFailsTheClose() {
        CoreOnlyDevice report = device(LeakMode.REPORT);
        ProtectionDomain pd = report.allocateProtectionDomain();
        report.close();
        assertThatThrownBy(pd::allocateMemoryWindow).as("the leaked PD was closed").isInstanceOf(ResourceClosedException.class);

        CoreOnlyDevice strict = device(LeakMode.STRICT);
        strict.createCompletionQueue(4);
        assertThatThrownBy(strict::close).isInstanceOf(ResourceLeakException.class)
                .hasMessageContaining(strict.name() + " cq 1").hasMessageContaining(DeviceCoreTest.class.getName() + ".closingWithResourcesOpenReportsThemAndStrictModeFailsTheClose(");
        assertThat(strict.isClosed()).isTrue();
        strict.close(); // once only
        assertThat(transport.calls).containsExactly("stop true", "stop true");
    }

    @Test
    void aFatalErrorStopsNewWorkAndAResetReleasesRogueOwnersAndBringsTheAdapterBack() {
        try (CoreOnlyDevice d = device(LeakMode.STRICT)) {
            ProtectionDomain rogue = d.allocateProtectionDomain();
            d.core.injectFatalError("test: PCI error");
            assertThat(transport.calls).containsExactly("adapterFailed injected: test: PCI error [PD]");
            assertThat(d.portState()).isEqualTo(PortState.FATAL);
            AsyncEvent fatal = d.pollAsyncEvent(Duration.ofSeconds(5));
            assertThat(fatal).as("DEVICE_FATAL within 5 s").isNotNull();
            assertThat(fatal.type()).isEqualTo(AsyncEventType.DEVICE_FATAL);
            assertThat(fatal.resource()).isSameAs(d);
            assertThatThrownBy(d::allocateProtectionDomain).isInstanceOf(DeviceUnavailableException.class)
                    .hasMessageContaining("reset() brings the adapter back");
            d.core.injectFatalError("again");
            assertThat(transport.calls).as("once until a reset").hasSize(1);

            ResetReport report = d.core.reset(Duration.ZERO);
            assertThat(report.rogueResources()).singleElement().asString().contains(d.name() + " pd 1");
            assertThat(transport.calls).containsSubsequence("holdProgress", "releaseProgress", "restart");
            assertThatThrownBy(rogue::allocateMemoryWindow).as("the rogue owner's PD").isInstanceOf(ResourceClosedException.class);
            assertThat(d.portState()).isEqualTo(PortState.ACTIVE);
            assertThat(d.core.fatalCause()).isEmpty();
            AsyncEvent active = d.pollAsyncEvent(Duration.ofSeconds(5));
            assertThat(active).as("PORT_ACTIVE within 5 s").isNotNull();
            assertThat(active.type()).isEqualTo(AsyncEventType.PORT_ACTIVE);
            d.allocateProtectionDomain().close();
        }
    }

    @Test
    void anEmptyPollDrivesTheTransportOnlyWhenItAsksForIt() {
        try (CoreOnlyDevice d = device(LeakMode.STRICT)) {
            KitCompletionQueue cq = (KitCompletionQueue) d.createCompletionQueue(4);
            WorkCompletion[] out = WorkCompletion.array(1);
            assertThat(cq.poll(out, 0, 1)).isZero();
            assertThat(transport.calls).as("progress on poll off").isEmpty();

            transport.progressOnPoll = true;
            transport.work = 1;
            assertThat(cq.poll(out, 0, 1)).isZero();
            assertThat(transport.calls).containsExactly("notePoll", "progress");
            cq.add(7, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 0, 1, 0, 0, 0, null, 0);
            transport.calls.clear();
            assertThat(cq.poll(out, 0, 1)).isOne();
            assertThat(out[0].wrId()).isEqualTo(7);
            assertThat(transport.calls).as("a poll that found a completion is noted, and drives nothing yet").containsExactly("notePoll");
            cq.close();
        }
    }

    /** A thread whose polls keep finding completions still drives progress now and then, so inbound work is never left unread. */
    @Test
    void aPollerThatKeepsFindingCompletionsStillDrivesProgressRegularly() {
        try (CoreOnlyDevice d = device(LeakMode.STRICT)) {
            KitCompletionQueue cq = (KitCompletionQueue) d.createCompletionQueue(8);
            transport.progressOnPoll = true;
            WorkCompletion[] out = WorkCompletion.array(1);
            int polls = 0;
            while (!transport.calls.contains("progress") && polls < 1000) {
                cq.add(polls, CompletionStatus.SUCCESS, CompletionOpcode.SEND, 0, 1, 0, 0, 0, null, 0);
                assertThat(cq.poll(out, 0, 1)).as("poll %d finds its completion", polls).isOne();
                polls++;
            }
            assertThat(polls).as("polls, each finding a completion, before one drove progress").isBetween(2, 16);
            assertThat(transport.calls).as("every poll noted, one round of progress").containsOnly("notePoll", "progress")
                    .filteredOn("progress"::equals).hasSize(1);
            cq.close();
        }
    }
}
