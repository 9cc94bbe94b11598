package dev.tandem.tools.dump;

import dev.tandem.ras.CorruptStructureException;
import dev.tandem.ras.DumpFiles;
import dev.tandem.ras.OwnerState;
import dev.tandem.ras.RasHeader;
import dev.tandem.ras.RasReader;
import dev.tandem.tools.text.ToolException;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Gets a dump of process {@code pid}: asks it through its RAS file when it runs and waits (bounded)
 * for the file it writes; when it is not running (or has closed its file) writes one here from its
 * RAS file alone.
 */
final class DumpRequest {
    /** How often the wait looks at the process's dump done sequence. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private DumpRequest() {
    }

    /**
     * The dump and, when it holds the RAS file only, why.
     *
     * @param file the dump file
     * @param note null when the process wrote it, else e.g. "process 42 is not running: dump holds its RAS file only"
     */
    record Result(Path file, String note) {
    }

    /**
     * A dump of {@code pid} whose RAS file is in {@code dir}.
     *
     * @throws ToolException when there is no such file, it is corrupt, the process does not answer
     *                           within {@code timeout}, or the dump cannot be written
     */
    static Result of(Path dir, long pid, Duration timeout) {
        Path file = dir.resolve(pid + ".ras");
        if (!Files.isRegularFile(file)) {
            throw new ToolException(Files.isDirectory(dir)
                    ? "no RAS file for pid " + pid + " in " + dir + " (give --dir if the process uses another directory)"
                    : "no RAS directory " + dir + ", so no Tandem process " + pid + " (give --dir if it uses another one)");
        }
        try (RasReader reader = RasReader.open(file)) {
            RasHeader header = reader.header();
            boolean alive = reader.processAlive();
            if (alive && header.ownerState() == OwnerState.OPEN) {
                return new Result(requested(reader, pid, timeout), null);
            }
            String note = alive ? "process " + pid + " has closed its RAS file: dump holds its RAS file only"
                    : "process " + pid + " is not running: dump holds its RAS file only";
            return new Result(DumpFiles.writeFromRasFile(file, dir, alive ? "from-file" : "post-mortem"), note);
        } catch (CorruptStructureException e) {
            throw new ToolException("RAS file " + file + " is corrupt: " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new ToolException(e.getMessage(), e);
        }
    }

    private static Path requested(RasReader reader, long pid, Duration timeout) {
        long sequence;
        try {
            sequence = reader.requestDump();
        } catch (IllegalStateException e) {
            throw new ToolException(e.getMessage(), e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (reader.dumpDone() < sequence) {
            if (System.nanoTime() - deadline > 0) {
                throw new ToolException("process " + pid + " did not write the dump within " + Timeout.format(timeout)
                        + ": its RAS duty thread may be busy or stopped (request " + sequence
                        + " stays pending; a longer --timeout waits more)");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        Optional<Path> dump = reader.lastDump();
        if (dump.isEmpty()) {
            throw new ToolException("process " + pid + " could not write the dump; its error log says why:"
                    + " tandem errors --pid " + pid);
        }
        return dump.get();
    }
}
