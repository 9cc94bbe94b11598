package dev.tandem.iwarp;

import dev.tandem.provider.NodeKeyTable;
import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One adapter of a node for the restart-safe key tests: opened on a loopback address with the node key
 * table {@code keys} as its node keys and STag source (or with neither), one PD and CQ, and whatever
 * regions, QPs and listeners a test makes on it, all closed with the node.
 */
final class KeyedNode implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(5);
    final String ip;
    final NodeKeyTable keys;
    final IwarpDevice device;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    private final Arena arena = Arena.ofShared();
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();
    private boolean closed;

    /** An adapter on {@code ip} with {@code keys} (null: an adapter without node keys). */
    KeyedNode(String ip, NodeKeyTable keys) {
        this.ip = ip;
        this.keys = keys;
        this.device = IwarpDevice.open(IwarpConfig.of(ip), keys == null ? DeviceOptions.DEFAULT
                : DeviceOptions.DEFAULT.withStagSource(keys).withNodeKeys(keys));
        this.pd = device.allocateProtectionDomain();
        this.cq = device.createCompletionQueue(256);
    }

    /** A region of {@code size} bytes, every byte {@code fill}, that peers may write and read. */
    MemoryRegion region(int size, int fill) {
        MemorySegment s = arena.allocate(size, 64);
        s.fill((byte) fill);
        return keep(pd.registerMemory(s, Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ));
    }

    QueuePair qp() {
        return keep(pd.createQueuePair(QueuePairConfig.of(cq)));
    }

    Listener listen() {
        return keep(device.listen(new InetSocketAddress(ip, 0), 8));
    }

    private <T extends AutoCloseable> T keep(T r) {
        resources.push(r);
        return r;
    }

    /** What each application saw of the other's private data in one set-up. */
    record Seen(byte[] byResponder, byte[] byInitiator) {
    }

    /**
     * Connects {@code client} to {@code listener}, where the application accepts the next request onto
     * {@code server} with {@code replyData}; returns what each side's application was given.
     */
    static Seen connect(QueuePair client, byte[] requestData, Listener listener, QueuePair server, byte[] replyData) throws Exception {
        CompletableFuture<byte[]> accepted = CompletableFuture.supplyAsync(() -> {
            ConnectionRequest r = listener.accept(WAIT);
            byte[] pd = r.privateData();
            r.accept(server, replyData);
            return pd;
        });
        byte[] reply = client.connect(listener.localAddress(), requestData, WAIT);
        return new Seen(accepted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), reply);
    }

    /** The value of this adapter's counter {@code name} in the process's RAS file. */
    long counter(String name) throws Exception {
        String label = device.name() + " " + name;
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.counters().stream().filter(c -> c.label().equals(label)).mapToLong(CounterSnapshot::value).findFirst()
                    .orElse(0);
        }
    }

    /** The error log entries this adapter recorded. */
    List<ErrorEntry> errors() throws Exception {
        try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
            return reader.errors().stream().filter(e -> e.cause().startsWith(device.name() + ": ")).toList();
        }
    }

    /** Closes every resource, then the adapter (a node that dies); closing again does nothing. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                throw new AssertionError("closing a resource of " + device.name(), e);
            }
        }
        cq.close();
        pd.close();
        device.close();
        arena.close();
    }
}
