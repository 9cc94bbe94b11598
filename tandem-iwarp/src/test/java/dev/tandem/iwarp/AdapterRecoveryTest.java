package dev.tandem.iwarp;

import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.AsyncErrorException;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.DeviceUnavailableException;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.ResetReport;
import dev.tandem.verbs.ResourceClosedException;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fatal adapter errors (injected, engine thread death, corrupted structure markers) fail every QP and
 * flush its work; reset() brings the adapter back, waiting for cooperative owners and releasing the
 * resources of rogue ones by force. Errors the engine finds are also posted to the owning resource.
 */
class AdapterRecoveryTest {

    private static AsyncEvent awaitEvent(RdmaDevice device, AsyncEventType type) {
        long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            AsyncEvent e = device.pollAsyncEvent(Duration.ofMillis(100));
            if (e != null && e.type() == type) {
                return e;
            }
        }
        throw new AssertionError("no " + type + " event on " + device.name() + " within " + LoopbackPair.WAIT);
    }

    /** Connects a fresh pair over the two adapters and proves a Send gets through. */
    private static void proveUsable(IwarpDevice a, IwarpDevice b) throws Exception {
        try (LoopbackPair fresh = new LoopbackPair(a, b, 4096, false)) {
            fresh.qpB.postReceive(new ReceiveRequest(1, new Sge(fresh.mrB, 0, 64)));
            fresh.qpA.postSend(new WorkRequest.Send(2, new Sge(fresh.mrA, 0, 64), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(fresh.cqA).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(LoopbackPair.awaitOne(fresh.cqB).status()).isEqualTo(CompletionStatus.SUCCESS);
        }
    }

    @Test
    void aFatalErrorFlushesAllWorkRaisesDeviceFatalAndRefusesNewWork() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            for (int i = 0; i < 3; i++) {
                p.qpA.postReceive(new ReceiveRequest(10 + i, new Sge(p.mrA, 0, 64)));
            }
            p.a.injectFatalError("test: PCI error");

            AsyncEvent fatal = awaitEvent(p.a, AsyncEventType.DEVICE_FATAL);
            assertThat(fatal.detail()).isEqualTo("injected: test: PCI error");
            assertThat(p.a.portState()).isEqualTo(PortState.FATAL);
            assertThat(p.a.fatalCause()).contains("injected: test: PCI error");
            assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
            WorkCompletion[] wc = WorkCompletion.array(8);
            assertThat(p.cqA.poll(wc)).as("the receives were flushed and can be polled").isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                assertThat(wc[i].status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
                assertThat(wc[i].wrId()).isEqualTo(10 + i);
            }
            assertThatThrownBy(() -> p.a.createCompletionQueue(8)).isInstanceOf(DeviceUnavailableException.class)
                    .hasMessageContaining("adapter " + p.a.name() + " failed (injected: test: PCI error)")
                    .hasMessageContaining("reset()");
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED)))
                    .isInstanceOf(DeviceUnavailableException.class);
            AsyncEvent peer = LoopbackPair.awaitFailureEvent(p.b, "the peer sees its connection end");
            assertThat(peer.resource()).isSameAs(p.qpB);
            try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
                assertThat(reader.errors()).anySatisfy(e ->
                        assertThat(e.cause()).isEqualTo(p.a.name() + ": fatal adapter error: injected: test: PCI error"));
            }
        }
    }

    @Test
    void resetWithCooperativeOwnersMakesTheAdapterUsableAgain() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            // the owner of side A releases its resources when it learns the adapter failed
            CompletableFuture<Void> owner = CompletableFuture.runAsync(() -> {
                awaitEvent(a, AsyncEventType.DEVICE_FATAL);
                p.closeSideA();
            });
            a.injectFatalError("test: PCI error");
            ResetReport report = a.reset(Duration.ofSeconds(5));
            owner.get(5, TimeUnit.SECONDS);

            assertThat(report.adapter()).isEqualTo(a.name());
            assertThat(report.cause()).isEqualTo("injected: test: PCI error");
            assertThat(report.rogueResources()).isEmpty();
            assertThat(report.stuckThreads()).isZero();
            assertThat(report.faultToUsable()).isPositive().isGreaterThanOrEqualTo(report.resetDuration());
            assertThat(a.portState()).isEqualTo(PortState.ACTIVE);
            assertThat(a.fatalCause()).isEmpty();
            assertThat(awaitEvent(a, AsyncEventType.PORT_ACTIVE).detail()).contains("injected: test: PCI error");
            p.close();
            proveUsable(a, b);
        }
    }

    @Test
    void resetNamesRogueOwnersAndReleasesTheirResourcesByForce() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            a.injectFatalError("test: PCI error");
            ResetReport report = a.reset(Duration.ofMillis(50));

            assertThat(report.rogueResources()).hasSize(4).allSatisfy(r -> assertThat(r)
                    .contains("created by thread '" + Thread.currentThread().getName() + "'")
                    .contains(LoopbackPair.class.getName() + ".<init>(LoopbackPair.java:"));
            assertThat(report.rogueResources()).anySatisfy(r -> assertThat(r).startsWith("QP " + a.name() + " qp " + p.qpA.qpNumber()));
            assertThatThrownBy(() -> p.qpA.postSend(new WorkRequest.Send(1, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED)))
                    .isInstanceOf(ResourceClosedException.class);
            assertThat(p.mrA.isValid()).isFalse();
            assertThat(a.liveResources()).isEmpty();
            try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
                assertThat(reader.errors()).anySatisfy(e -> assertThat(e.cause())
                        .startsWith(a.name() + ": reset released a resource of a rogue owner: QP created at " + LoopbackPair.class.getName()));
            }
            p.close();
            proveUsable(a, b);
        }
    }

    @Test
    void callsDuringAResetAreRefusedWithASpecificError() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            CompletableFuture<ResetReport> reset = CompletableFuture.supplyAsync(() -> a.reset(Duration.ofSeconds(10)));
            long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
            String message = "";
            WorkCompletion[] wc = WorkCompletion.array(1);
            while (message.isEmpty() && System.nanoTime() < deadline) {
                try {
                    p.cqA.poll(wc);
                } catch (DeviceUnavailableException e) {
                    message = e.getMessage();
                }
            }
            assertThat(message).as("a poll once the reset shut the gate").isEqualTo("adapter " + a.name()
                    + " is being reset; retry once reset() returned");
            assertThatThrownBy(() -> a.createCompletionQueue(4)).isInstanceOf(DeviceUnavailableException.class)
                    .hasMessage("adapter " + a.name() + " is being reset; retry once reset() returned");
            assertThatThrownBy(() -> a.reset(Duration.ZERO)).isInstanceOf(dev.tandem.verbs.InvalidStateException.class)
                    .hasMessageContaining("already being reset");
            p.closeSideA();
            ResetReport report = reset.get(5, TimeUnit.SECONDS);
            assertThat(report.rogueResources()).isEmpty();
            assertThat(report.cause()).startsWith("reset requested by thread '");
            p.close();
            proveUsable(a, b);
        }
    }

    @Test
    void theEngineThreadDyingIsAFatalErrorAndAResetRestartsIt() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1").withProgressOnPoll(false));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2").withProgressOnPoll(false))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            a.injectEngineCrash(new Error("test: engine crash"));
            AsyncEvent fatal = awaitEvent(a, AsyncEventType.DEVICE_FATAL);
            assertThat(fatal.detail()).isEqualTo("engine thread " + a.engineThreadName() + " died: java.lang.Error: test: engine crash");
            long deadline = System.nanoTime() + LoopbackPair.WAIT.toNanos();
            while (a.isEngineRunning() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(a.isEngineRunning()).as("the engine thread ended within " + LoopbackPair.WAIT).isFalse();
            p.closeSideA();
            ResetReport report = a.reset(Duration.ofSeconds(1));
            assertThat(report.rogueResources()).isEmpty();
            assertThat(a.isEngineRunning()).as("the reset started a new engine thread").isTrue();
            p.close();
            proveUsable(a, b);
        }
    }

    @Test
    void aCorruptedStructureMarkerIsAFatalErrorNamingTheStructure() throws Exception {
        try (IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.2"))) {
            LoopbackPair p = new LoopbackPair(a, b, 4096, false);
            Path file = ProcessRas.current().path();
            ByteBuffer saved = ByteBuffer.allocate(16);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long end = ch.size() - 16;
                ch.read(saved, end);
                ch.write(ByteBuffer.wrap("OVERWRITTEN!!!!!".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), end);
                try {
                    AsyncEvent fatal = awaitEvent(p.a, AsyncEventType.DEVICE_FATAL);
                    assertThat(fatal.detail()).startsWith("structure marker corrupted: ").contains(file.toString()).contains("OVERWRITTEN");
                    assertThat(p.qpA.state()).isEqualTo(QpState.ERROR);
                } finally {
                    ch.write(saved.flip(), end);
                }
            }
            p.closeSideA();
            assertThat(p.a.reset(Duration.ofSeconds(1)).rogueResources()).isEmpty();
            awaitEvent(p.b, AsyncEventType.DEVICE_FATAL);
            p.close();
            b.reset(Duration.ofSeconds(1));
            proveUsable(a, b);
        }
    }

    @Test
    void anErrorTheEngineFindsIsReportedByTheNextPostOnTheQp() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            p.qpA.postSend(new WorkRequest.RdmaRead(3, new Sge(p.mrA, 0, 64), 0, p.mrB.rkey() ^ 0x33, WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);
            WorkRequest send = new WorkRequest.Send(4, new Sge(p.mrA, 0, 8), WrFlags.SIGNALED);
            assertThatThrownBy(() -> p.qpA.postSend(send)).isInstanceOfSatisfying(AsyncErrorException.class, e -> {
                assertThat(e.type()).isEqualTo(AsyncEventType.QP_ACCESS_ERROR);
                assertThat(e).hasMessageStartingWith("QP " + p.qpA.qpNumber() + " went to ERROR: peer sent Terminate RDMAP_INVALID_STAG");
            });
            p.qpA.postSend(send);
            WorkCompletion flushed = LoopbackPair.awaitOne(p.cqA);
            assertThat(flushed.wrId()).as("once reported, posts are flushed as usual").isEqualTo(4);
            assertThat(flushed.status()).isEqualTo(CompletionStatus.WR_FLUSH_ERR);
        }
    }

    @Test
    void aCompletionQueueOverflowIsReportedByTheNextPoll() throws Exception {
        try (IwarpDevice d = IwarpDevice.open(IwarpConfig.of("127.0.1.1"));
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            var pd = d.allocateProtectionDomain();
            CompletionQueue cq = d.createCompletionQueue(2);
            var mr = pd.registerMemory(arena.allocate(256), dev.tandem.verbs.Access.LOCAL_WRITE);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
            for (int i = 0; i < 4; i++) {
                qp.postReceive(new ReceiveRequest(i, new Sge(mr, 0, 64)));
            }
            qp.modify(QpState.ERROR);
            assertThat(awaitEvent(d, AsyncEventType.CQ_ERROR).resource()).isSameAs(cq);
            WorkCompletion[] wc = WorkCompletion.array(4);
            assertThatThrownBy(() -> cq.poll(wc)).isInstanceOfSatisfying(AsyncErrorException.class,
                    e -> assertThat(e.type()).isEqualTo(AsyncEventType.CQ_ERROR)).hasMessageContaining("overflowed");
            assertThat(cq.poll(wc)).as("the completions that fitted").isEqualTo(2);
            qp.close();
            mr.close();
            cq.close();
            pd.close();
        }
    }
}
