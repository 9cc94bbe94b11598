package dev.tandem.tools.system;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasConfig;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Tandem process for {@link OutsideViewTest}: two adapters on loopback, one failed RDMA Read (so
 * the error log has an entry), then Sends back and forth until its stdin closes or it is killed.
 * args: RAS directory, adapter address a, adapter address b. Prints {@code READY <pid>}.
 */
public final class TrafficProcess {
    private TrafficProcess() {
    }

    public static void main(String[] args) throws Exception {
        ProcessRas.configure(RasConfig.defaults().withDir(Path.of(args[0])));
        try (Arena arena = Arena.ofShared();
             IwarpDevice a = IwarpDevice.open(IwarpConfig.of(args[1]));
             IwarpDevice b = IwarpDevice.open(IwarpConfig.of(args[2]))) {
            ProtectionDomain pdA = a.allocateProtectionDomain();
            ProtectionDomain pdB = b.allocateProtectionDomain();
            CompletionQueue cqA = a.createCompletionQueue(256);
            CompletionQueue cqB = b.createCompletionQueue(256);
            MemoryRegion mrA = pdA.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            MemoryRegion mrB = pdB.registerMemory(arena.allocate(4096, 64), Access.LOCAL_WRITE | Access.REMOTE_READ);
            QueuePair bad = connect(a, b, pdA, pdB, cqA, cqB, args[2]);
            bad.postSend(new WorkRequest.RdmaRead(1, new Sge(mrA, 0, 64), 0, mrB.rkey() ^ 0x77, WrFlags.SIGNALED));
            WorkCompletion[] wc = WorkCompletion.array(16);
            while (cqA.poll(wc) == 0) {
                Thread.onSpinWait();
            }
            if (wc[0].status() != CompletionStatus.REM_ACCESS_ERR) {
                throw new IllegalStateException("expected REM_ACCESS_ERR, got " + wc[0]);
            }
            QueuePair qpA = connect(a, b, pdA, pdB, cqA, cqB, args[2]);
            QueuePair qpB = lastAccepted;
            ReceiveRequest receive = new ReceiveRequest(2, new Sge(mrB, 1024, 64));
            for (int i = 0; i < 64; i++) {
                qpB.postReceive(receive);
            }
            WorkRequest send = new WorkRequest.Send(3, new Sge(mrA, 0, 32), WrFlags.SIGNALED);
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            Thread stdinWatcher = Thread.ofPlatform().daemon().name("traffic-stdin").start(() -> {
                try {
                    while (System.in.read() >= 0) {
                        Thread.onSpinWait();
                    }
                } catch (java.io.IOException e) {
                    // stdin gone: stop below
                }
            });
            while (stdinWatcher.isAlive()) {
                Thread.sleep(2); // paced: about 300 Sends a second, a steady trickle for the outside tools to watch
                qpA.postSend(send);
                boolean sent = false;
                boolean received = false;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!(sent && received) && System.nanoTime() < deadline) {
                    for (int i = cqA.poll(wc) - 1; i >= 0; i--) {
                        sent = true;
                    }
                    for (int i = cqB.poll(wc) - 1; i >= 0; i--) {
                        received = true;
                        qpB.postReceive(receive);
                    }
                }
                cqA.await(wc, Duration.ofMillis(1));
            }
            // a clean shutdown closes what it opened (closing a PD closes its regions and QPs)
            pdA.close();
            pdB.close();
            cqA.close();
            cqB.close();
        }
    }

    private static QueuePair lastAccepted;

    private static QueuePair connect(IwarpDevice a, IwarpDevice b, ProtectionDomain pdA, ProtectionDomain pdB,
                                     CompletionQueue cqA, CompletionQueue cqB, String addressB) throws Exception {
        QueuePair qpA = pdA.createQueuePair(QueuePairConfig.of(cqA));
        QueuePair qpB = pdB.createQueuePair(QueuePairConfig.of(cqB));
        try (Listener l = b.listen(new InetSocketAddress(addressB, 0), 1)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> l.accept(Duration.ofSeconds(10)).accept(qpB, new byte[0]));
            qpA.connect(l.localAddress(), new byte[0], Duration.ofSeconds(10));
            accepted.get(10, TimeUnit.SECONDS);
        }
        lastAccepted = qpB;
        return qpA;
    }
}
