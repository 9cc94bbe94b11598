package dev.tandem.tools.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code ip} command of iproute2, each run bounded in time. A run that exits non-zero or does not
 * finish in time is a {@link LabException} that quotes the command and what it printed on stderr.
 * Output goes through temporary files, so no pipe can fill up and no reader thread is needed.
 */
public final class Ip {
    /** How long one {@code ip} command may take when no other bound is given. */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(10);

    private static final List<Path> SYSTEM_DIRS = List.of(Path.of("/usr/sbin"), Path.of("/sbin"), Path.of("/usr/bin"), Path.of("/bin"));

    private final Path binary;
    private final Duration wait;

    /**
     * @param binary the {@code ip} executable
     * @param wait   how long one command may run before it is killed and reported
     */
    public Ip(Path binary, Duration wait) {
        this.binary = Objects.requireNonNull(binary, "binary");
        this.wait = Objects.requireNonNull(wait, "wait");
        if (wait.isNegative() || wait.isZero()) {
            throw new IllegalArgumentException("wait must be positive, not " + wait);
        }
    }

    /**
     * The {@code ip} of this system, found on {@code PATH} or in {@code /usr/sbin}, {@code /sbin} (which a
     * user's {@code PATH} often lacks).
     *
     * @throws LabException when there is none
     */
    public static Ip system() {
        return new Ip(find().orElseThrow(() -> new LabException(LabPreflight.NO_IP)), DEFAULT_WAIT);
    }

    /** The {@code ip} executable on {@code PATH} or in the usual system directories, if any. */
    public static Optional<Path> find() {
        List<Path> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(java.io.File.pathSeparator)) {
                if (!d.isEmpty()) {
                    dirs.add(Path.of(d));
                }
            }
        }
        dirs.addAll(SYSTEM_DIRS);
        return dirs.stream().map(d -> d.resolve("ip")).filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst();
    }

    /** The executable this runs. */
    public Path binary() {
        return binary;
    }

    /**
     * Runs {@code ip args...} and returns what it printed on stdout.
     *
     * @throws LabException when it exits non-zero, cannot start, or runs longer than the bound
     */
    public String run(String... args) {
        return run(List.of(args));
    }

    /** As {@link #run(String...)}. */
    public String run(List<String> args) {
        List<String> command = new ArrayList<>(args.size() + 1);
        command.add(binary.toString());
        command.addAll(args);
        String shown = "ip " + String.join(" ", args);
        Path out = null;
        Path err = null;
        try {
            out = Files.createTempFile("tandem-ip", ".out");
            err = Files.createTempFile("tandem-ip", ".err");
            Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(1, TimeUnit.SECONDS);
                throw new LabException("'" + shown + "' did not finish within " + wait.toMillis() + " ms; killed it"
                        + stderrPart(read(err)));
            }
            if (p.exitValue() != 0) {
                throw new LabException("'" + shown + "' failed (exit " + p.exitValue() + ")" + stderrPart(read(err)));
            }
            return read(out);
        } catch (IOException e) {
            throw new LabException("could not run '" + shown + "': " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LabException("interrupted while waiting for '" + shown + "'", e);
        } finally {
            delete(out);
            delete(err);
        }
    }

    /**
     * A process builder for {@code command} run inside network namespace {@code namespace}
     * ({@code ip netns exec NAMESPACE COMMAND...}); the caller starts it and owns the process.
     */
    public ProcessBuilder exec(String namespace, List<String> command) {
        Objects.requireNonNull(namespace, "namespace");
        if (command.isEmpty()) {
            throw new IllegalArgumentException("no command to run in namespace " + namespace);
        }
        List<String> full = new ArrayList<>(command.size() + 4);
        full.addAll(List.of(binary.toString(), "netns", "exec", namespace));
        full.addAll(command);
        return new ProcessBuilder(full);
    }

    private static String stderrPart(String stderr) {
        String s = stderr.strip().replace('\n', ' ');
        return s.isEmpty() ? "" : ": " + s;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static void delete(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temp file left behind is harmless; the command's result matters more
            }
        }
    }
}
