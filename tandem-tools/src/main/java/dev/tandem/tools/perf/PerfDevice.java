package dev.tandem.tools.perf;

import java.util.Locale;

/** Which device the Tandem side of a run uses ({@code --device}). */
public enum PerfDevice {
    /** One software iWARP adapter per side. */
    IWARP("iwarp", "Tandem software iWARP over TCP"),
    /** A fail-over device per side over two software iWARP adapters: 127.0.1.x with 127.0.2.x. */
    FAILOVER("failover", "Tandem fail-over device over two software iWARP adapters per side (127.0.1.x with 127.0.2.x)");

    private final String cliName;
    private final String description;

    PerfDevice(String cliName, String description) {
        this.cliName = cliName;
        this.description = description;
    }

    /** The name on the command line and in the JSON report. */
    public String cliName() {
        return cliName;
    }

    /** What the text report's Provider line says. */
    public String description() {
        return description;
    }

    /** The device {@code --device NAME} asks for. */
    public static PerfDevice fromCliName(String name) {
        for (PerfDevice d : values()) {
            if (d.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                return d;
            }
        }
        throw new IllegalArgumentException("--device takes iwarp or failover, got '" + name + "'");
    }
}
