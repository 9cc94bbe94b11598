package dev.tandem.tools.lab.node;

import dev.tandem.tools.lab.Lab;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LabNode} running on one lab host, owned by whoever started it: started with {@link Lab#inHost}
 * in a JVM like this one (same module or class path), driven over its stdin, read without blocking
 * ({@link #poll()}), and stopped by {@link #close()} (stdin closed, killed if it lingers). No thread of
 * its own: its owner polls it.
 */
public final class NodeProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path stderr;
    private final InputStream in;
    private final OutputStream out;
    private final StringBuilder pending = new StringBuilder();

    private NodeProcess(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        this.in = process.getInputStream();
        this.out = process.getOutputStream();
    }

    /** Starts node {@code name} on host {@code host} of {@code lab} with {@code args} after its name (see {@link LabNode}). */
    public static NodeProcess start(Lab lab, int host, String role, String name, List<String> args) throws IOException {
        Path stderr = Files.createTempFile("tandem-lab-node-" + name, ".err");
        List<String> command = new ArrayList<>(javaCommand());
        command.add(role);
        command.add(name);
        command.addAll(args);
        try {
            return new NodeProcess(name, lab.inHost(host, command).redirectError(stderr.toFile()).start(), stderr);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(stderr);
            throw e;
        }
    }

    /** A JVM like this one that runs {@link LabNode}: on the module path where this one runs from it, else on the class path. */
    static List<String> javaCommand() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> c = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m"));
        String modules = System.getProperty("jdk.module.path");
        if (modules != null && !modules.isBlank() && LabNode.class.getModule().isNamed()) {
            c.addAll(List.of("-p", modules, "-m", LabNode.class.getModule().getName() + "/" + LabNode.class.getName()));
        } else {
            c.addAll(List.of("-cp", System.getProperty("java.class.path"), LabNode.class.getName()));
        }
        return c;
    }

    /** The node's name (a, b). */
    public String name() {
        return name;
    }

    /** Sends one command line. */
    public void send(String command) {
        try {
            out.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new LabNodeException("node " + name + " takes no more commands (" + e.getMessage() + "); " + exitAndErrors());
        }
    }

    /**
     * The reports it printed since last asked, without waiting.
     *
     * @throws LabNodeException when it printed a line that is no report
     */
    public List<NodeReport> poll() {
        List<NodeReport> reports = new ArrayList<>();
        try {
            int available = in.available();
            if (available > 0) {
                pending.append(new String(in.readNBytes(available), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // its stdout closed: it ended; isAlive says so
        }
        int nl;
        while ((nl = pending.indexOf("\n")) >= 0) {
            String line = pending.substring(0, nl);
            pending.delete(0, nl + 1);
            try {
                reports.add(NodeReport.parse(line));
            } catch (IllegalArgumentException e) {
                throw new LabNodeException("node " + name + " printed a line that is no report (" + e.getMessage() + "): " + line);
            }
        }
        return reports;
    }

    /** True while its process runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Kills it at once (SIGKILL: no goodbye to its peer), and waits up to 5 s for it to be gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Its exit code (once ended) and the end of what it wrote on stderr, for messages. */
    public String exitAndErrors() {
        String exit = process.isAlive() ? "still running" : "exit code " + process.exitValue();
        String errors;
        try {
            errors = Files.readString(stderr).strip();
        } catch (java.nio.file.NoSuchFileException e) {
            errors = ""; // closed already: its stderr went with it
        } catch (IOException e) {
            errors = "(stderr unreadable: " + e.getMessage() + ")";
        }
        if (errors.length() > 2000) {
            errors = "..." + errors.substring(errors.length() - 2000);
        }
        return exit + (errors.isEmpty() ? "" : "; stderr: " + errors);
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
                // a temp file left behind does not change what the node did
            }
        }
    }
}
