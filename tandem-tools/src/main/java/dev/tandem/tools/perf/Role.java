package dev.tandem.tools.perf;

/** Which side(s) of a benchmark this process plays. */
public enum Role {
    /** Both sides in one process, two adapters on loopback (127.0.1.1 -> 127.0.1.2). */
    LOOPBACK,
    /** Listen, serve one client, exit. */
    SERVER,
    /** Connect to a server. */
    CLIENT
}
