package dev.tandem.ras;

/**
 * The header of a RAS file.
 *
 * @param layoutVersion layout version of the file
 * @param pid           owner's process id
 * @param startTimeMs   when the owner created the file, epoch ms
 * @param heartbeatMs   the owner's latest heartbeat, epoch ms
 * @param ownerState    open, closed cleanly, or still being written
 * @param command       what the owner runs (main class and arguments, possibly cut)
 */
public record RasHeader(int layoutVersion, long pid, long startTimeMs, long heartbeatMs, OwnerState ownerState, String command) {
}
