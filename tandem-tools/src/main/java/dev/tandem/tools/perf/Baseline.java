package dev.tandem.tools.perf;

import java.util.Locale;

/**
 * What a run is compared with ({@code --baseline}): the same pattern over another path, measured
 * in the same run right after Tandem's in every phase, and reported as Tandem's figure over its own.
 */
public enum Baseline {
    /** No baseline: Tandem's figures only. */
    NONE("none", "no", "nothing"),
    /** Plain java.nio TCP between the same two addresses. */
    TCP("tcp", "TCP", "java.nio TCP"),
    /** Plain iWARP adapters on the same addresses as the device's first adapters: what a device over them costs. */
    IWARP("iwarp", "iWARP", "plain iWARP adapters");

    private final String cliName;
    private final String title;
    private final String path;

    Baseline(String cliName, String title, String path) {
        this.cliName = cliName;
        this.title = title;
        this.path = path;
    }

    /** The name on the command line and in the JSON report ({@code tcp}, {@code iwarp}). */
    public String cliName() {
        return cliName;
    }

    public boolean present() {
        return this != NONE;
    }

    /**
     * The key of the baseline's figures in the JSON report, and the prefix of its allocation
     * figures: its name, or {@code tcp} without a baseline (where they are null), as before there
     * was a choice.
     */
    public String jsonKey() {
        return this == NONE ? TCP.cliName : cliName;
    }

    /** What the baseline runs over: {@code java.nio TCP}, {@code plain iWARP adapters}. */
    public String path() {
        return path;
    }

    /** Its name in a sentence: {@code TCP}, {@code iWARP}. */
    public String title() {
        return title;
    }

    /** How the baseline waits when the Tandem side waits by {@code wait}: the same way, in its own terms. */
    public String waitDescription(WaitMode wait) {
        return this == TCP ? wait.tcpDescription() : wait.tandemDescription();
    }

    /** The baseline {@code --baseline NAME} asks for. */
    public static Baseline fromCliName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals(TCP.cliName)) {
            return TCP;
        }
        if (n.equals(IWARP.cliName)) {
            return IWARP;
        }
        throw new IllegalArgumentException("--baseline takes tcp (plain java.nio TCP on the same path) or iwarp (plain iWARP adapters, "
                + "with --device failover), got '" + name + "'");
    }
}
