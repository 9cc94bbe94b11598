package dev.tandem.tools.dump;

import dev.tandem.ras.RasConfig;
import dev.tandem.ras.RasFileDescriptor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Prepares RAS files for the dump tests (which run {@code tandem} with {@link dev.tandem.tools.CliRun}). */
final class DumpCli {
    /** A pid no process has (above Linux's largest pid_max, 2^22). */
    static final long DEAD_PID = 999_999_999L;

    private DumpCli() {
    }

    /** A small RAS file configuration in {@code dir} without a duty thread. */
    static RasConfig config(Path dir) {
        return RasConfig.defaults().withDir(dir).withCounterCapacity(64).withErrorLogBytes(4096)
                .withTraceRingBytes(1 << 16).withResourceCapacity(32).withDutyIntervalMs(0);
    }

    /** The file of a crashed process: a copy of {@code source} (still open) named and stamped with {@link #DEAD_PID}. */
    static Path deadCopy(Path source, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path copy = dir.resolve(DEAD_PID + RasFileDescriptor.FILE_SUFFIX);
        Files.copy(source, copy);
        try (FileChannel channel = FileChannel.open(copy, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, DEAD_PID), RasFileDescriptor.PID_OFFSET);
        }
        return copy;
    }
}
