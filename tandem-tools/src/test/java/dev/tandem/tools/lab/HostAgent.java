package dev.tandem.tools.lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A {@link ProbeAgent} running on one lab host, owned by a test: started with {@link Lab#inHost}, driven over
 * its stdin and stdout (every read bounded), stopped by {@link #close()} (stdin closed, then killed if it
 * lingers).
 */
final class HostAgent implements AutoCloseable {
    /** How long an agent's JVM may take to start on a busy machine. */
    static final Duration START = Duration.ofSeconds(30);

    private final int host;
    private final Process process;
    private final Path stderr;
    private final InputStream in;
    private final OutputStream out;
    private final StringBuilder pending = new StringBuilder();
    private int port;

    private HostAgent(int host, Process process, Path stderr) {
        this.host = host;
        this.process = process;
        this.stderr = stderr;
        this.in = process.getInputStream();
        this.out = process.getOutputStream();
    }

    /** Starts an agent on every host of {@code lab} (their JVMs start side by side); returns once all listen. */
    static List<HostAgent> startAll(Lab lab) throws IOException {
        List<HostAgent> agents = new ArrayList<>();
        try {
            for (int i = 1; i <= lab.plan().hosts(); i++) {
                agents.add(launch(lab, i));
            }
            for (HostAgent a : agents) {
                a.awaitReady();
            }
            return List.copyOf(agents);
        } catch (IOException | RuntimeException e) {
            agents.forEach(HostAgent::close);
            throw e;
        }
    }

    private static HostAgent launch(Lab lab, int host) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path stderr = Files.createTempFile("tandem-lab-agent", ".err");
        Process p = lab.inHost(host, java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx32m", "-cp", classes(),
                ProbeAgent.class.getName()).redirectError(stderr.toFile()).start();
        return new HostAgent(host, p, stderr);
    }

    private void awaitReady() {
        String ready = readLine(START);
        if (!ready.startsWith("ready ")) {
            throw new IllegalStateException("agent on h" + host + " said '" + ready + "' instead of 'ready PORT'");
        }
        port = Integer.parseInt(ready.substring(6).strip());
    }

    /** The host it runs on. */
    int host() {
        return host;
    }

    /** The port it listens on, on every address of its host. */
    int port() {
        return port;
    }

    /** Sends one request line; the answer is read with {@link #readLine}. */
    void send(String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /**
     * The next line it prints, waiting at most {@code bound}.
     *
     * @throws IllegalStateException when it ended or said nothing within the bound, with its stderr
     */
    String readLine(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        try {
            while (true) {
                int nl = pending.indexOf("\n");
                if (nl >= 0) {
                    String line = pending.substring(0, nl);
                    pending.delete(0, nl + 1);
                    return line;
                }
                int available = in.available();
                if (available > 0) {
                    pending.append(new String(in.readNBytes(available), StandardCharsets.UTF_8));
                } else if (!process.isAlive() && in.available() == 0) {
                    throw new IllegalStateException("agent on h" + host + " ended (exit " + process.exitValue() + "): " + errors());
                } else if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("agent on h" + host + " said nothing within " + bound.toMillis() + " ms; stderr: "
                            + errors());
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("reading from the agent on h" + host + " failed", e);
        }
    }

    /** True while its process runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Ends it: stdin closed (it exits by itself), killed if still there after 5 s; its stderr file removed. */
    @Override
    public void close() {
        try {
            out.close();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            try {
                Files.deleteIfExists(stderr);
            } catch (IOException e) {
                // a temp file left behind does not change what the test proved
            }
        }
    }

    private String errors() {
        try {
            return Files.readString(stderr).strip();
        } catch (IOException e) {
            return "(stderr unreadable: " + e.getMessage() + ")";
        }
    }

    private static String classes() {
        try {
            return Path.of(ProbeAgent.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
