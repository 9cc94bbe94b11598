package dev.tandem.bench;

import dev.tandem.iwarp.IwarpConfig;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ConnectionException;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.RdmaException;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * How long a well-behaved {@code connect} takes while idle and slow clients hold a listener, next to
 * the same connect on a quiet listener in the same run (the baseline). Each scenario opens a fresh
 * listener on adapter 127.0.1.2, brings up its hostile population ({@link HostileClients}: idle
 * connections and connections trickling an MPA Request at one byte per second, from many source
 * addresses or from one), runs a few unmeasured connects, then {@code N} measured ones from adapter
 * 127.0.1.1, one at a time, each a full connect (TCP, MPA Request and Reply, the application's accept).
 *
 * <p>A quiet listener is measured first (after an unreported JIT warm-up) and again last, to show drift.
 * Per scenario it prints the median, 90th percentile and worst connect time, the median's
 * difference to the faster quiet listener's, the connects that failed, the process's threads (all, and
 * Tandem's {@code tandem-*}), the heap in use after a GC, and what the hostile clients saw (open now,
 * closed by the listener and replaced). Hostile clients run in this process, so the thread and heap
 * figures include their one driver thread and their sockets.
 *
 * <pre>
 * java -cp "tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*" \
 *      dev.tandem.bench.ListenerFloodBenchmark [connects=20] [sources=both|many|one] [timeout-s=20] [warmup=5]
 * </pre>
 */
public final class ListenerFloodBenchmark {
    private static final String SERVER_IP = "127.0.1.2";
    private static final String CLIENT_IP = "127.0.1.1";
    private static final byte[] GOOD = "good".getBytes(StandardCharsets.US_ASCII);

    /** One hostile population. */
    record Scenario(String name, int idle, int trickling, boolean oneSource) {
        String sources() {
            return idle + trickling == 0 ? "-" : oneSource ? "one" : "many";
        }
    }

    /** What one scenario measured. */
    record Result(Scenario scenario, double[] connectMs, int failed, int threads, int tandemThreads, double heapMb,
                  int hostileOpen, long hostileReplaced) {
        double median() {
            return percentile(0.5);
        }

        double percentile(double p) {
            if (connectMs.length == 0) {
                return Double.NaN;
            }
            double[] s = connectMs.clone();
            Arrays.sort(s);
            return s[Math.clamp((int) Math.ceil(p * s.length) - 1, 0, s.length - 1)];
        }

        double max() {
            return connectMs.length == 0 ? Double.NaN : Arrays.stream(connectMs).max().orElseThrow();
        }
    }

    private ListenerFloodBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int connects = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String sources = args.length > 1 ? args[1] : "both";
        Duration timeout = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 20);
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        List<Scenario> scenarios = new ArrayList<>(List.of(
                new Scenario("quiet listener", 0, 0, false)));
        for (boolean one : sources.equals("both") ? new boolean[] {false, true} : new boolean[] {sources.equals("one")}) {
            scenarios.add(new Scenario("10 idle", 10, 0, one));
            scenarios.add(new Scenario("1000 idle", 1000, 0, one));
            scenarios.add(new Scenario("100 trickling", 0, 100, one));
            scenarios.add(new Scenario("1000 idle + 100 trickling", 1000, 100, one));
        }
        scenarios.add(new Scenario("quiet listener again", 0, 0, false));
        System.out.printf(Locale.ROOT, "listener flood: %d measured connects per scenario (after %d unmeasured), connect timeout %d s, %d cores%n",
                connects, warmup, timeout.toSeconds(), Runtime.getRuntime().availableProcessors());
        System.out.printf(Locale.ROOT, "%-27s %-7s %9s %9s %9s %10s %6s %7s %7s %7s %7s %9s%n", "scenario", "sources",
                "median ms", "p90 ms", "max ms", "vs quiet", "failed", "threads", "tandem-", "heap MB", "hostile", "replaced");
        try (IwarpDevice server = IwarpDevice.open(IwarpConfig.of(SERVER_IP));
             IwarpDevice client = IwarpDevice.open(IwarpConfig.of(CLIENT_IP));
             ProtectionDomain pdServer = server.allocateProtectionDomain();
             ProtectionDomain pdClient = client.allocateProtectionDomain()) {
            // JIT warm-up on a quiet listener, not reported: the first scenario is the baseline and must not pay for it
            run(new Scenario("warm-up", 0, 0, false), server, pdServer, client, pdClient, 10 * connects, warmup, timeout);
            List<Result> results = new ArrayList<>();
            for (Scenario s : scenarios) {
                results.add(run(s, server, pdServer, client, pdClient, connects, warmup, timeout));
            }
            // the baseline is the faster of the two quiet listeners: the stricter comparison
            double quiet = results.stream().filter(r -> r.scenario().idle() + r.scenario().trickling() == 0)
                    .mapToDouble(Result::median).min().orElse(Double.NaN);
            for (Result r : results) {
                System.out.printf(Locale.ROOT, "%-27s %-7s %9.2f %9.2f %9.2f %+10.2f %6d %7d %7d %7.1f %7d %9d%n", r.scenario().name(),
                        r.scenario().sources(), r.median(), r.percentile(0.9), r.max(), r.median() - quiet, r.failed(), r.threads(),
                        r.tandemThreads(), r.heapMb(), r.hostileOpen(), r.hostileReplaced());
            }
        }
    }

    private static Result run(Scenario s, IwarpDevice server, ProtectionDomain pdServer, IwarpDevice client, ProtectionDomain pdClient,
                              int connects, int warmup, Duration timeout) throws Exception {
        try (Listener listener = server.listen(new InetSocketAddress(SERVER_IP, 0), 16);
             Acceptor acceptor = new Acceptor(listener, server, pdServer);
             HostileClients hostile = new HostileClients(listener.localAddress(), s.idle(), s.trickling(), s.oneSource())) {
            if (!hostile.awaitEstablished(Duration.ofSeconds(30))) {
                System.out.printf("  (%s: only %d hostile connections established after 30 s)%n", s.name(), hostile.connected());
            }
            for (int i = 0; i < warmup; i++) {
                connectOnce(client, pdClient, listener.localAddress(), timeout);
            }
            double[] ms = new double[connects];
            int ok = 0;
            int failed = 0;
            for (int i = 0; i < connects; i++) {
                double t = connectOnce(client, pdClient, listener.localAddress(), timeout);
                if (Double.isNaN(t)) {
                    failed++;
                } else {
                    ms[ok++] = t;
                }
            }
            acceptor.checkHealthy();
            System.gc();
            var threads = ManagementFactory.getThreadMXBean();
            int tandem = (int) Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("tandem-")).count();
            double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
            return new Result(s, Arrays.copyOf(ms, ok), failed, threads.getThreadCount(), tandem, heap, hostile.connected(), hostile.replaced());
        }
    }

    /** One well-behaved connect, timed from the call to the established QP; NaN when it failed. */
    private static double connectOnce(IwarpDevice client, ProtectionDomain pd, InetSocketAddress to, Duration timeout) {
        try (CompletionQueue cq = client.createCompletionQueue(4);
             QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq))) {
            long start = System.nanoTime();
            try {
                qp.connect(to, GOOD, timeout);
            } catch (ConnectionException e) {
                return Double.NaN;
            }
            return (System.nanoTime() - start) / 1e6;
        }
    }

    /** The application: accepts the good requests onto fresh QPs, rejects any other; closes them all at the end. */
    private static final class Acceptor implements AutoCloseable {
        private final Listener listener;
        private final Thread thread;
        private final List<AutoCloseable> opened = new ArrayList<>();
        private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        private volatile boolean running = true;

        Acceptor(Listener listener, IwarpDevice device, ProtectionDomain pd) {
            this.listener = listener;
            this.thread = Thread.ofPlatform().daemon().name("bench-acceptor").start(() -> {
                while (running) {
                    ConnectionRequest r;
                    try {
                        r = listener.accept(Duration.ofMillis(200));
                    } catch (RdmaException e) {
                        continue;   // no request within 200 ms, or the listener closed
                    }
                    try {
                        if (!Arrays.equals(r.privateData(), GOOD)) {
                            r.reject(new byte[0]);
                            continue;
                        }
                        CompletionQueue cq = device.createCompletionQueue(4);
                        QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq));
                        opened.add(qp);
                        opened.add(cq);
                        r.accept(qp, new byte[0]);
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }
            });
        }

        @Override
        public void close() {
            running = false;
            HostileClients.awaitStop(thread);
            for (AutoCloseable c : opened) {
                try {
                    c.close();
                } catch (Exception e) {
                    failures.add(e);
                }
            }
            checkHealthy();
        }

        /** Throws the first failure of the application's side, if there was one. */
        void checkHealthy() {
            if (!failures.isEmpty()) {
                throw new IllegalStateException("the acceptor failed: " + failures.peek(), failures.peek());
            }
        }
    }
}
