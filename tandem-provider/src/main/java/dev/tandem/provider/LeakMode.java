package dev.tandem.provider;

/**
 * What closing an adapter does about resources still open on it. Both modes close them and report
 * each with the call site that created it (logged and in the RAS error log); STRICT then fails the
 * close with {@link dev.tandem.verbs.ResourceLeakException}, so a test suite proves it leaks nothing.
 */
public enum LeakMode {
    REPORT,
    STRICT;

    /** The system property that sets the default: {@code -Dtandem.leaks=strict} (Tandem's own tests run so). */
    public static final String PROPERTY = "tandem.leaks";

    /** STRICT when {@code -Dtandem.leaks=strict}, else REPORT. */
    public static LeakMode fromSystemProperty() {
        return "strict".equalsIgnoreCase(System.getProperty(PROPERTY, "")) ? STRICT : REPORT;
    }
}
