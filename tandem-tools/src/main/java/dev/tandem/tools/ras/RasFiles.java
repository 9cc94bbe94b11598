package dev.tandem.tools.ras;

import dev.tandem.ras.CorruptStructureException;
import dev.tandem.ras.RasConfig;
import dev.tandem.ras.RasListing;
import dev.tandem.ras.RasReader;
import dev.tandem.tools.text.ToolException;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;

/** Finds and reads RAS files for the commands, turning every failure into a {@link ToolException} with a clear message. */
final class RasFiles {
    /** Dead processes whose last heartbeat is older than this (a day) are listed only with {@code --all}. */
    static final long RECENT_MS = 24L * 3600 * 1000;

    private RasFiles() {
    }

    /** The directory the commands read when no {@code --dir} is given. */
    static Path defaultDir() {
        return RasConfig.defaultDir();
    }

    /**
     * The processes in {@code dir}: the one with {@code pid} if given (alive or not), else every readable
     * file except those of processes dead for over a day (unless {@code all}).
     *
     * @throws ToolException when {@code pid} has no file in {@code dir}
     */
    static Selection select(Path dir, OptionalLong pid, boolean all, long nowMs) {
        if (pid.isPresent()) {
            return new Selection(dir, List.of(open(dir, pid.getAsLong())), List.of(), 0);
        }
        List<ProcessView> processes = new ArrayList<>();
        List<RasListing.Unreadable> unreadable = new ArrayList<>();
        int hidden = 0;
        List<RasListing> listing;
        try {
            listing = RasReader.list(dir);
        } catch (UncheckedIOException e) {
            throw new ToolException(e.getMessage(), e);
        }
        for (RasListing l : listing) {
            switch (l) {
                case RasListing.Found f -> {
                    if (all || f.alive() || nowMs - f.header().heartbeatMs() <= RECENT_MS) {
                        processes.add(new ProcessView(f.file(), f.header(), f.alive()));
                    } else {
                        hidden++;
                    }
                }
                case RasListing.Unreadable u -> unreadable.add(u);
            }
        }
        return new Selection(dir, processes, unreadable, hidden);
    }

    /**
     * The process {@code pid} as its file in {@code dir} shows it.
     *
     * @throws ToolException when there is no such file or it cannot be read
     */
    static ProcessView open(Path dir, long pid) {
        Path file = fileOf(dir, pid);
        return read(file, r -> new ProcessView(file, r.header(), r.processAlive()));
    }

    /**
     * Opens {@code file}, applies {@code action} and closes it.
     *
     * @throws ToolException when the file is missing, cannot be read or is corrupt
     */
    static <T> T read(Path file, Function<RasReader, T> action) {
        if (!Files.isRegularFile(file)) {
            throw missing(file);
        }
        try (RasReader reader = RasReader.open(file)) {
            return action.apply(reader);
        } catch (UncheckedIOException e) {
            if (!Files.isRegularFile(file)) {
                throw missing(file);
            }
            throw new ToolException(e.getMessage(), e);
        } catch (CorruptStructureException e) {
            throw new ToolException("RAS file " + file + " is corrupt: " + e.getMessage(), e);
        }
    }

    /** The file of process {@code pid} in {@code dir}. */
    static Path fileOf(Path dir, long pid) {
        return dir.resolve(pid + ".ras");
    }

    private static ToolException missing(Path file) {
        Path dir = file.getParent();
        String name = file.getFileName().toString();
        String pid = name.endsWith(".ras") ? name.substring(0, name.length() - 4) : name;
        if (dir == null || !Files.isDirectory(dir)) {
            return new ToolException("no RAS directory " + dir + ", so no Tandem process " + pid
                    + " (a process creates it when it opens its first adapter; give --dir if it uses another one)");
        }
        List<String> pids = new ArrayList<>();
        try {
            for (RasListing l : RasReader.list(dir)) {
                String n = l.file().getFileName().toString();
                pids.add(n.substring(0, n.length() - 4));
            }
        } catch (UncheckedIOException e) {
            pids.add("(cannot list: " + e.getMessage() + ")");
        }
        return new ToolException("no RAS file for pid " + pid + " in " + dir + " ("
                + (pids.isEmpty() ? "it holds none" : "it holds pids " + String.join(", ", pids)) + ")");
    }
}
