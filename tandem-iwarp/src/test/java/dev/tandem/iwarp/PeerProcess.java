package dev.tandem.iwarp;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The peer of {@link KilledPeerTest}, run in its own JVM: listens on the address in args[0],
 * accepts one connection with its region's rkey in the private data, prints READY and the port,
 * then waits to be killed.
 */
public final class PeerProcess {
    private PeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        IwarpDevice device = IwarpDevice.open(IwarpConfig.of(args[0]));
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(64);
        MemoryRegion mr = pd.registerMemory(Arena.ofShared().allocate(1 << 16, 64),
                Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ);
        QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
        Listener listener = device.listen(new InetSocketAddress(args[0], 0), 1);
        System.out.println("READY " + listener.localAddress().getPort());
        System.out.flush();
        ConnectionRequest request = listener.accept(Duration.ofSeconds(30));
        request.accept(qp, ByteBuffer.allocate(4).putInt(mr.rkey()).array());
        System.out.println("CONNECTED");
        System.out.flush();
        // Block until killed (or until the parent closes our stdin).
        while (System.in.read() >= 0) {
            Thread.onSpinWait();
        }
        device.close();
    }
}
