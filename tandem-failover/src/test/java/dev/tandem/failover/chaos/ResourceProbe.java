package dev.tandem.failover.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Live threads and open descriptors of this process, before a scenario and after it closed everything:
 * what the stack leaves behind. Threads of the JDK and the test runner are not counted; descriptors are
 * counted by kind (sockets, pipes, event and epoll descriptors), so files the JVM opens lazily (jars,
 * /dev/urandom) do not count.
 */
record ResourceProbe(Map<String, Integer> threads, Map<String, Integer> descriptors, Set<String> targets) {
    private static final Pattern NOT_OURS = Pattern.compile(
            "main|Reference Handler|Finalizer|Signal Dispatcher|Common-Cleaner|Notification Thread|Attach Listener|process reaper.*"
                    + "|ForkJoinPool.*|surefire.*|junit.*|Keep-Alive.*|C[12] CompilerThread.*|Sweeper thread|Monitor Deflation Thread"
                    + "|JFR.*|RMI.*|.*GC.*|Thread-\\d+ \\(junit.*");
    private static final Set<String> KINDS = Set.of("socket", "pipe", "anon_inode");

    static {
        // the JDK's NIO keeps one end of a socket pair for ever from its first use (its pre-close descriptor): made here, before any probe
        try {
            java.nio.channels.ServerSocketChannel.open().close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** What lives now. */
    static ResourceProbe take() {
        Map<String, Integer> t = new TreeMap<>();
        for (Thread th : Thread.getAllStackTraces().keySet()) {
            if (th.isAlive() && !NOT_OURS.matcher(th.getName()).matches()) {
                t.merge(th.getName(), 1, Integer::sum);
            }
        }
        Set<String> targets = openDescriptors();
        Map<String, Integer> d = new TreeMap<>();
        for (String target : targets) {
            String kind = target.contains(":") ? target.substring(0, target.indexOf(':')) : "file";
            if (KINDS.contains(kind)) {
                d.merge(kind.equals("anon_inode") ? target : kind, 1, Integer::sum);
            }
        }
        return new ResourceProbe(t, d, targets);
    }

    /** The link targets of every open descriptor (socket:[inode], pipe:[inode], anon_inode:[eventpoll], paths). */
    private static Set<String> openDescriptors() {
        Set<String> d = new java.util.TreeSet<>();
        Path fd = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fd)) {
            return d;
        }
        try (Stream<Path> s = Files.list(fd)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    d.add(Files.readSymbolicLink(p).toString());
                } catch (IOException e) {
                    // closed while listed
                }
            }
        } catch (IOException e) {
            return d;
        }
        return d;
    }

    /** Threads alive now that were not before (by name, counted). */
    List<String> newThreads(ResourceProbe before) {
        List<String> l = new ArrayList<>();
        threads.forEach((name, n) -> {
            int was = before.threads.getOrDefault(name, 0);
            if (n > was) {
                l.add(name + (n - was > 1 ? " x" + (n - was) : ""));
            }
        });
        return l;
    }

    /** Descriptor kinds that grew since {@code before}: kind, before, now. */
    List<String> grownDescriptors(ResourceProbe before) {
        List<String> l = new ArrayList<>();
        descriptors.forEach((kind, n) -> {
            int was = before.descriptors.getOrDefault(kind, 0);
            if (n > was) {
                l.add(kind + " " + was + "->" + n);
            }
        });
        return l;
    }

    /** What /proc/net says of the socket with {@code inode}: protocol, state, local and remote address. */
    static String describeSocket(String inode) {
        for (String proto : List.of("tcp", "tcp6", "udp", "udp6", "unix")) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/net", proto))) {
                    String[] f = line.trim().split("\\s+");
                    if (proto.equals("unix") ? f.length > 6 && f[6].equals(inode) : f.length > 9 && f[9].equals(inode)) {
                        return proto.equals("unix") ? "unix " + (f.length > 7 ? f[7] : "(unnamed)")
                                : proto + " " + address(f[1]) + "->" + address(f[2]) + " state " + TCP_STATES.getOrDefault(f[3], f[3]);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // not readable here: try the next
            }
        }
        return "socket " + inode + " (not in /proc/net)";
    }

    private static final Map<String, String> TCP_STATES = Map.of("01", "ESTABLISHED", "02", "SYN_SENT", "06", "TIME_WAIT",
            "07", "CLOSE", "08", "CLOSE_WAIT", "0A", "LISTEN", "04", "FIN_WAIT1", "05", "FIN_WAIT2", "09", "LAST_ACK", "0B", "CLOSING");

    /**
     * {@code 0100007F:1F90} (an IPv4 address as /proc/net/tcp writes it, in 32-bit words of host order) as
     * {@code 127.0.0.1:8080}; an IPv4-mapped tcp6 address likewise, any other IPv6 address as written.
     */
    private static String address(String hex) {
        String[] p = hex.split(":");
        String word = p[0].length() == 8 ? p[0] : p[0].length() == 32 && p[0].startsWith("0000000000000000FFFF0000") ? p[0].substring(24) : null;
        if (word == null) {
            return hex;
        }
        long ip = Long.parseLong(word, 16);
        return (ip & 0xFF) + "." + (ip >> 8 & 0xFF) + "." + (ip >> 16 & 0xFF) + "." + (ip >> 24 & 0xFF) + ":" + Integer.parseInt(p[1], 16);
    }

    /**
     * Compares with {@code before}, giving threads that outlived the scenario up to {@code bound} to end
     * (joined, not slept on), and adds a finding for each kind of leftover.
     */
    static void check(ResourceProbe before, Duration bound, Findings findings) {
        long deadline = System.nanoTime() + bound.toNanos();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && !NOT_OURS.matcher(t.getName()).matches() && !before.threads.containsKey(t.getName())) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left > 0) {
                    try {
                        t.join(left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
        ResourceProbe after = take();
        List<String> threads = after.newThreads(before);
        if (!threads.isEmpty()) {
            findings.add(Check.THREADS, threads.size() + " threads alive " + bound.toSeconds() + "s after everything closed: " + threads);
        }
        List<String> fds = after.grownDescriptors(before);
        if (!fds.isEmpty()) {
            List<String> sockets = new ArrayList<>();
            for (String target : after.targets) {
                if (target.startsWith("socket:[") && !before.targets.contains(target)) {
                    sockets.add(describeSocket(target.substring(8, target.length() - 1)));
                }
            }
            findings.add(Check.DESCRIPTORS, "descriptors left after everything closed: " + fds + (sockets.isEmpty() ? "" : "; new sockets: " + sockets));
        }
    }
}
