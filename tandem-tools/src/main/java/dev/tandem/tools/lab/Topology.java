package dev.tandem.tools.lab;

import java.util.Locale;

/** How a lab's hosts are cabled. */
public enum Topology {
    /**
     * One switch per fabric: adapter k of every host is cabled to switch k, and the switches route between
     * fabrics, so any adapter reaches any other host's adapter while the switches in between are up.
     */
    SWITCHED,
    /** Two hosts, no switch: adapter k of one host is cabled straight to adapter k of the other, and reaches nothing else. */
    SWITCHLESS;

    /** The word used on the command line and in output: {@code switched} or {@code switchless}. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }
}
