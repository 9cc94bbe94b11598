package dev.tandem.tools.ras;

import dev.tandem.ras.OwnerState;
import dev.tandem.ras.RasHeader;

import java.nio.file.Path;
import java.util.Locale;

/**
 * One Tandem process as its RAS file shows it.
 *
 * @param file   its RAS file
 * @param header the file's header
 * @param alive  whether the process runs (pid alive and started before the file)
 */
record ProcessView(Path file, RasHeader header, boolean alive) {
    long pid() {
        return header.pid();
    }

    /** {@code alive} or {@code dead}. */
    String processState() {
        return alive ? "alive" : "dead";
    }

    /** The owner's file state in lower case: {@code open}, {@code closed} or {@code initialising}. */
    String fileState() {
        return header.ownerState().name().toLowerCase(Locale.ROOT);
    }

    /** True when a process that runs still writes the file (so a trace level set there takes effect). */
    boolean live() {
        return alive && header.ownerState() == OwnerState.OPEN;
    }

    /** E.g. {@code pid 4711 (alive, file open)}. */
    String title() {
        return "pid " + pid() + " (" + processState() + ", file " + fileState() + ")";
    }
}
