package dev.tandem.tools.perf;

import dev.tandem.tools.perf.rdma.Patience;
import dev.tandem.verbs.ListenerClosedException;
import dev.tandem.verbs.RdmaDevice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Both sides in one process: two adapters on loopback, the server on a named thread, the client on
 * the caller's thread. The server's allocation figures join the client's results. An iWARP
 * baseline runs on two more, plain adapters at the same two addresses.
 *
 * <p>Everything is closed in the reverse order of opening, on every path: the server thread is
 * stopped and joined first (it closes what it opened for the client), then the listener, then the
 * adapters, so no adapter is closed under a resource still in use. When a side fails, the failure
 * reported is the cause: a side that only saw its connection go down yields to the other side's
 * own failure.
 */
public final class PerfLoopback {
    public static final String CLIENT_IP = "127.0.1.1";
    public static final String SERVER_IP = "127.0.1.2";
    /** The name of the thread that runs the server side. */
    static final String SERVER_THREAD = "tandem-perf-server";
    private static final Duration JOIN_TIMEOUT = Stall.TIMEOUT.multipliedBy(2);

    private PerfLoopback() {
    }

    /** Runs {@code s} on devices from {@code opener}; an iWARP baseline is not possible (see the other form). */
    public static MeasuredRun run(PerfSettings s, AdapterOpener opener, PerfProgress progress) {
        return run(s, opener, null, progress, Patience.DEFAULT);
    }

    /**
     * Runs {@code s} on devices from {@code opener}, and its iWARP baseline (if it has one) on plain
     * adapters from {@code baselineOpener}.
     */
    public static MeasuredRun run(PerfSettings s, AdapterOpener opener, AdapterOpener baselineOpener, PerfProgress progress) {
        return run(s, opener, baselineOpener, progress, Patience.DEFAULT);
    }

    /** As {@link #run(PerfSettings, AdapterOpener, PerfProgress)}, with the patience of both sides' waits. */
    static MeasuredRun run(PerfSettings s, AdapterOpener opener, PerfProgress progress, Patience patience) {
        return run(s, opener, null, progress, patience);
    }

    /** As {@link #run(PerfSettings, AdapterOpener, AdapterOpener, PerfProgress)}, with the patience of both sides' waits. */
    static MeasuredRun run(PerfSettings s, AdapterOpener opener, AdapterOpener baselineOpener, PerfProgress progress, Patience patience) {
        boolean plain = s.baseline() == Baseline.IWARP;
        if (plain && baselineOpener == null) {
            throw new IllegalArgumentException("an iWARP baseline needs an opener for its plain adapters; none was given");
        }
        try (RdmaDevice client = opener.open(CLIENT_IP, s.crc());
             RdmaDevice server = opener.open(SERVER_IP, s.crc());
             RdmaDevice baselineClient = plain ? baselineOpener.open(CLIENT_IP, s.crc()) : null;
             RdmaDevice baselineServer = plain ? baselineOpener.open(SERVER_IP, s.crc()) : null;
             PerfServer perfServer = PerfServer.listen(server, new InetSocketAddress(SERVER_IP, s.port()), s.crc(), patience, baselineServer);
             ServerThread serving = ServerThread.start(perfServer)) {
            MeasuredRun measured;
            try {
                measured = PerfClient.run(client, baselineClient, address(CLIENT_IP), perfServer.address(), s, progress, patience);
            } catch (RuntimeException e) {
                throw serving.stopAndBlame(e);
            }
            return merge(measured, serving.result());
        }
    }

    private static MeasuredRun merge(MeasuredRun measured, ServedRun served) {
        List<SizeResult> merged = new ArrayList<>();
        for (int i = 0; i < measured.results().size(); i++) {
            SizeResult r = measured.results().get(i);
            double tandemServer = i < served.tandem().size() ? served.tandem().get(i).allocPerOp() : Double.NaN;
            double baselineServer = i < served.baseline().size() ? served.baseline().get(i).allocPerOp() : Double.NaN;
            merged.add(new SizeResult(r.phase(), r.tandem(), r.tandemClientAllocPerOp(), tandemServer, r.baseline(),
                    r.baselineClientAllocPerOp(), baselineServer));
        }
        return new MeasuredRun(measured.local(), measured.remote(), measured.crc(), merged);
    }

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new PerfException("'" + ip + "' is not an IP address", e);
        }
    }

    /**
     * The server side on its own named thread. Its owner reads {@link #result} once the client is
     * done, or {@link #stopAndBlame} when the client failed; {@link #close} stops it on every path.
     */
    private static final class ServerThread implements AutoCloseable {
        private final PerfServer server;
        private final Thread thread;
        private volatile ServedRun result;
        private volatile Throwable failure;
        /** A stop whose join timed out: the thread is left behind, and not waited for again. */
        private boolean abandoned;

        private ServerThread(PerfServer server) {
            this.server = server;
            this.thread = Thread.ofPlatform().name(SERVER_THREAD).daemon(true).unstarted(() -> {
                try {
                    result = server.serveOne(Stall.TIMEOUT);
                } catch (Throwable t) {
                    failure = t;
                }
            });
        }

        static ServerThread start(PerfServer server) {
            ServerThread t = new ServerThread(server);
            t.thread.start();
            return t;
        }

        /** What the server did for a client that finished: it finishes too (its last wait ends with the client's). */
        ServedRun result() {
            if (!join()) {
                throw new PerfException("the server thread did not finish within " + JOIN_TIMEOUT.toSeconds() + " s of the client");
            }
            if (failure != null) {
                throw new PerfException("the server side failed: " + failure.getMessage(), failure);
            }
            return result;
        }

        /**
         * The client failed with {@code clientFailure}: stops the server and returns the failure to
         * report. The server's own failure comes first when the client only saw the connection go
         * down; otherwise the client's, with the server's attached.
         */
        RuntimeException stopAndBlame(RuntimeException clientFailure) {
            boolean stopped = stop();
            Throwable f = failure;
            if (f != null && !(f instanceof ListenerClosedException)) {
                if (clientFailure instanceof ConnectionLostException && !(f instanceof ConnectionLostException)) {
                    PerfException cause = new PerfException("the server side failed: " + f.getMessage(), f);
                    cause.addSuppressed(clientFailure);
                    return cause;
                }
                clientFailure.addSuppressed(f);
            }
            if (!stopped) {
                clientFailure.addSuppressed(notStopped());
            }
            return clientFailure;
        }

        /**
         * Stops the server: closing it ends a wait for a client; a wait on a connection ends when
         * the client's side closes (the client closes its side before this is called).
         *
         * @return whether the thread ended
         */
        private boolean stop() {
            server.close();
            abandoned = !join();
            return !abandoned;
        }

        private boolean join() {
            try {
                return thread.join(JOIN_TIMEOUT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PerfException("interrupted while waiting for the server thread", e);
            }
        }

        private PerfException notStopped() {
            return new PerfException("the server thread did not stop within " + JOIN_TIMEOUT.toSeconds() + " s");
        }

        @Override
        public void close() {
            if (abandoned || thread.isAlive() && !stop()) {
                throw notStopped();
            }
        }
    }
}
