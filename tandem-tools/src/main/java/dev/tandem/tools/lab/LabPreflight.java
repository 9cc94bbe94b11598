package dev.tandem.tools.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * What a lab needs from the machine before anything is tried: root (to create network namespaces) and the
 * {@code ip} command. {@link #refusal()} is the one-line reason when something is missing.
 *
 * @param effectiveUid the process's effective user id; -1 when it could not be read
 * @param ip           the {@code ip} executable, if there is one
 */
public record LabPreflight(long effectiveUid, Optional<Path> ip) {
    /** The reason when there is no {@code ip} command. */
    static final String NO_IP = "tandem lab needs the 'ip' command of iproute2 and found it neither on PATH nor in /usr/sbin or /sbin;"
            + " install iproute2";

    private static final Path STATUS = Path.of("/proc/self/status");

    public LabPreflight {
        Objects.requireNonNull(ip, "ip");
    }

    /** This process: its effective uid from {@code /proc/self/status}, and {@link Ip#find()}. */
    public static LabPreflight ofThisProcess() {
        long uid;
        try {
            uid = effectiveUid(Files.readString(STATUS));
        } catch (IOException | IllegalArgumentException e) {
            uid = -1;
        }
        return new LabPreflight(uid, Ip.find());
    }

    /**
     * The effective uid in the text of {@code /proc/PID/status}: the second number of its {@code Uid:} line
     * (real, effective, saved, filesystem).
     *
     * @throws IllegalArgumentException when the text has no such line
     */
    public static long effectiveUid(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("Uid:")) {
                String[] ids = line.substring(4).strip().split("\\s+");
                if (ids.length >= 2) {
                    return Long.parseLong(ids[1]);
                }
            }
        }
        throw new IllegalArgumentException("no 'Uid:' line with real and effective uid in the process status");
    }

    /** Why a lab cannot be used here, as one line; empty when it can be tried. */
    public Optional<String> refusal() {
        if (effectiveUid != 0) {
            String who = effectiveUid < 0 ? "could not read the effective uid from " + STATUS : "running as uid " + effectiveUid;
            return Optional.of("tandem lab needs root to create network namespaces (" + who + "); run it with sudo");
        }
        if (ip.isEmpty()) {
            return Optional.of(NO_IP);
        }
        return Optional.empty();
    }

    /** The {@code ip} runner to use once {@link #refusal()} is empty. */
    public Ip ipRunner() {
        return new Ip(ip.orElseThrow(() -> new LabException(NO_IP)), Ip.DEFAULT_WAIT);
    }
}
