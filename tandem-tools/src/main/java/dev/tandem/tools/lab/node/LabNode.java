package dev.tandem.tools.lab.node;

import dev.tandem.failover.FailoverDevice;
import dev.tandem.failover.FailoverEvent;
import dev.tandem.failover.FailoverWatch;
import dev.tandem.failover.check.RingOffer;
import dev.tandem.failover.check.StreamReceiver;
import dev.tandem.failover.check.StreamSender;
import dev.tandem.failover.check.StreamShape;
import dev.tandem.tools.demo.FailoverNarration;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaDevices;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One node of a checked stream across lab hosts, as a process of its own: it opens a fail-over device over
 * its host's adapters and runs one half of the stream, the sender (which connects) or the receiver (which
 * listens, and offers its ring in the private data of its accept). It reports on stdout, one JSON object
 * per line ({@link NodeReport}): ready, connected, every fail-over event, and its half of the verdict every
 * {@value #REPORT_EVERY_MS} ms. It takes commands on stdin, one a line: {@code connect IP PORT} and
 * {@code send N} (sender), {@code fatal K} (a fatal error of its adapter K) and {@code reset K}. It exits
 * when stdin closes; every wait is bounded.
 *
 * <p>Usage: {@code LabNode sender NAME DEVICE} or {@code LabNode receiver NAME DEVICE LISTEN_IP}, where
 * DEVICE is a {@code failover://} name.
 */
public final class LabNode implements AutoCloseable {
    /** The stream's shape, the receiver's to choose: the in-process demo's. */
    public static final StreamShape SHAPE = StreamShape.sendsAndWrites(1024);
    /** How often it reports its half. */
    static final int REPORT_EVERY_MS = 50;
    /** Bound on connecting, accepting and waiting for the command to connect. */
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final String END = "\u0000end";
    private static final long EPOCH_OFFSET_NANOS = epochOffsetNanos();

    private final boolean sending;
    private final String name;
    private final PrintStream out;
    private final BlockingQueue<String> commands = new LinkedBlockingQueue<>();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final FailoverDevice device;
    private final FailoverWatch watch;
    private final QueuePair qp;
    private StreamSender sender;
    private StreamReceiver receiver;

    private LabNode(boolean sending, String name, String device, PrintStream out) {
        this.sending = sending;
        this.name = name;
        this.out = out;
        if (!(RdmaDevices.open(device) instanceof FailoverDevice d)) {
            throw new IllegalArgumentException("device " + device + " is not a fail-over device: give failover://IP+IP?node=NAME");
        }
        this.device = d;
        open.add(d);
        this.watch = d.watch();
        ProtectionDomain pd = d.allocateProtectionDomain();
        CompletionQueue cq = d.createCompletionQueue(128);
        this.qp = pd.createQueuePair(sending ? QueuePairConfig.of(cq).withDepths(SHAPE.window(), 8)
                : QueuePairConfig.of(cq).withDepths(8, SHAPE.window()));
    }

    /** Runs a node as {@code args} say (see the class comment); exit code 0 after stdin closed, 1 when it failed, 2 for bad arguments. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        boolean sending = args.length == 3 && args[0].equals("sender");
        if (!sending && !(args.length == 4 && args[0].equals("receiver"))) {
            System.err.println("usage: LabNode sender NAME DEVICE | LabNode receiver NAME DEVICE LISTEN_IP");
            System.exit(2);
        }
        int exit = 0;
        try (LabNode node = new LabNode(sending, args[1], args[2], out)) {
            node.run(sending ? null : args[3]);
        } catch (RuntimeException e) {
            say(out, new NodeReport.Failed(args[1], e.toString()));
            e.printStackTrace();
            exit = 1;
        }
        System.exit(exit);
    }

    private void run(String listenIp) {
        Thread stdin = Thread.ofPlatform().daemon().name("lab-node-stdin").start(this::readCommands);
        if (sending) {
            say(out, new NodeReport.Ready(name, 0));
            String[] c = next("connect IP PORT").split(" ");
            if (c.length != 3 || !c[0].equals("connect")) {
                throw new IllegalArgumentException("expected 'connect IP PORT', got '" + String.join(" ", c) + "'");
            }
            byte[] offer = qp.connect(new InetSocketAddress(c[1], Integer.parseInt(c[2])), new byte[0], WAIT);
            sender = StreamSender.on(qp, RingOffer.decode(offer));
            open.add(sender);
        } else {
            receiver = StreamReceiver.on(qp, SHAPE); // before the accept: its receives are posted first
            open.add(receiver);
            // the listener stays open while the connection lives: the peer sets a failed path up again through it
            Listener l = device.listen(new InetSocketAddress(listenIp, 0), 1);
            open.add(l);
            say(out, new NodeReport.Ready(name, l.localAddress().getPort()));
            ConnectionRequest r = l.accept(WAIT);
            r.accept(qp, receiver.offer().encode());
        }
        say(out, new NodeReport.Connected(name, device.adapterOf(qp)));
        loop();
        try {
            stdin.join(WAIT.toMillis()); // it ended with stdin: this only makes that visible
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Steps its half, reports events and its state, and obeys commands, until stdin closes. */
    private void loop() {
        long lastReport = 0;
        int idle = 0;
        while (true) {
            String c = commands.poll();
            if (c != null) {
                if (c.equals(END)) {
                    report();
                    return;
                }
                obey(c);
            }
            boolean moved = sending ? sender.step() : receiver.step();
            FailoverEvent e;
            while ((e = watch.poll(Duration.ZERO)) != null) {
                say(out, new NodeReport.Event(name, e.getClass().getSimpleName(), FailoverNarration.adapter(e), epochMicros(e.atNanos()),
                        FailoverNarration.text(e)));
            }
            long now = System.nanoTime();
            if (now - lastReport >= TimeUnit.MILLISECONDS.toNanos(REPORT_EVERY_MS)) {
                lastReport = now;
                report();
            }
            if (moved) {
                idle = 0;
            } else if (++idle > 256) {
                LockSupport.parkNanos(50_000); // nothing moves: leave the cores to the engines
            } else if (idle > 64) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private void obey(String command) {
        String[] c = command.split(" ");
        if (sending && c.length == 2 && c[0].equals("send")) {
            sender.limit(Long.parseLong(c[1]));
        } else if (c.length == 2 && c[0].equals("fatal")) {
            adapter(c[1]).injectFatalError("lab: adapter " + c[1] + " of node " + name + " fails (as a PCI error would)");
        } else if (c.length == 2 && c[0].equals("reset")) {
            adapter(c[1]).reset(WAIT);
        } else {
            throw new IllegalArgumentException("node " + name + " knows no command '" + command
                    + "'; it takes 'fatal K' and 'reset K' (its adapter K), a sender also 'send N'");
        }
    }

    private AdapterControl adapter(String k) {
        return (AdapterControl) device.adapters().get(Integer.parseInt(k));
    }

    private void report() {
        // a sender's adapter carries its sends; a receiver's is where the peer's sends arrive
        int adapter = sending ? device.adapterOf(qp) : device.receiveAdapterOf(qp);
        String state = qp.state().name();
        if (sending) {
            var half = sender.half();
            long resumed = sender.resumedNanos();
            say(out, new NodeReport.SenderState(name, state, adapter, half.lastSuccessNanos() == 0 ? 0 : epochMicros(half.lastSuccessNanos()),
                    resumed == 0 ? 0 : epochMicros(resumed), half));
        } else {
            var half = receiver.half();
            say(out, new NodeReport.ReceiverState(name, state, adapter,
                    half.lastSuccessNanos() == 0 ? 0 : epochMicros(half.lastSuccessNanos()), half));
        }
    }

    /** The next command, waiting {@link #WAIT} at most. */
    private String next(String expected) {
        try {
            String c = commands.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (c == null || c.equals(END)) {
                throw new IllegalStateException("node " + name + " waited for '" + expected + "' " + (c == null ? "for " + WAIT.toSeconds()
                        + " s" : "but stdin closed"));
            }
            return c;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for '" + expected + "'", e);
        }
    }

    private void readCommands() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    commands.add(line.strip());
                }
            }
        } catch (IOException e) {
            // stdin gone: the same as closed
        } finally {
            commands.add(END);
        }
    }

    private static void say(PrintStream out, NodeReport r) {
        synchronized (out) {
            out.println(r.json());
            out.flush();
        }
    }

    /** {@code nanoTime} of this process as microseconds since the epoch: comparable with another process's on this machine. */
    static long epochMicros(long nanoTime) {
        return (nanoTime + EPOCH_OFFSET_NANOS) / 1000;
    }

    private static long epochOffsetNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano() - System.nanoTime();
    }

    /** What it opened, last first (closing the device closes its queue pairs, queues and domains). */
    @Override
    public void close() {
        RuntimeException failed = null;
        for (int i = open.size() - 1; i >= 0; i--) {
            try {
                open.get(i).close();
            } catch (Exception e) {
                if (failed == null) {
                    failed = new IllegalStateException("closing " + open.get(i) + " failed", e);
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
