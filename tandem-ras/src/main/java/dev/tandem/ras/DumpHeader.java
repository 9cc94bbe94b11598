package dev.tandem.ras;

/**
 * The header of a dump file.
 *
 * @param formatVersion dump format version ({@link DumpFileDescriptor#FORMAT_VERSION})
 * @param pid           the process the dump describes
 * @param writerPid     the process that wrote it: the same pid, or a tool that dumped a dead process's RAS file
 * @param timeMs        when it was written, epoch ms
 * @param reason        why, e.g. {@code "requested"}, {@code "periodic"}, {@code "adapter fatal"}
 * @param command       what the described process runs (from its RAS file)
 */
public record DumpHeader(int formatVersion, long pid, long writerPid, long timeMs, String reason, String command) {

    /** True when the dump was written from the RAS file alone, by another process (no state tree). */
    public boolean fromRasFileOnly() {
        return writerPid != pid;
    }
}
