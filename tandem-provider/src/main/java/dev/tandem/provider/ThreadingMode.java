package dev.tandem.provider;

/** How an adapter's engine gets CPU time (after Aeron's threading modes). */
public enum ThreadingMode {
    /** One named engine thread per adapter. */
    DEDICATED,
    /** One named engine thread shared by every adapter of the process that asks for it. */
    SHARED
}
