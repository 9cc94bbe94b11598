package dev.tandem.ras;

import java.nio.file.Path;

/** One file found by {@link RasReader#list}: a readable RAS file, or one that could not be read and why. */
public sealed interface RasListing {
    /** The file. */
    Path file();

    /**
     * A readable RAS file.
     *
     * @param file   the file
     * @param header its header
     * @param alive  whether its owner process is running (pid alive and started before the file)
     */
    record Found(Path file, RasHeader header, boolean alive) implements RasListing {
    }

    /**
     * A file named like a RAS file that could not be read.
     *
     * @param file   the file
     * @param reason why (e.g. a {@link CorruptStructureException}'s message)
     */
    record Unreadable(Path file, String reason) implements RasListing {
    }
}
