package dev.tandem.iwarp;

import dev.tandem.verbs.RdmaDevice;

import java.security.ProtectionDomain;
import java.util.Optional;

/**
 * Who created a resource: process, thread, time and the first caller outside Tandem (the call site a
 * leak report or a rogue-owner report names). Captured with one bounded {@link StackWalker} walk at
 * creation, which is not a data-path operation.
 *
 * @param pid       process id
 * @param thread    name of the creating thread
 * @param createdMs creation time, epoch ms
 * @param callSite  {@code class.method(File.java:line)} of the first frame outside Tandem's engine and
 *                  verbs classes and the JDK, or {@code "unknown"}
 */
record Owner(long pid, String thread, long createdMs, String callSite) {
    private static final long PID = ProcessHandle.current().pid();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final ProtectionDomain ENGINE = IwarpDevice.class.getProtectionDomain();
    private static final ProtectionDomain VERBS = RdmaDevice.class.getProtectionDomain();
    private static final int MAX_DEPTH = 32;

    /** The owner of a resource the current thread is creating now. */
    static Owner capture() {
        String site = WALKER.walk(frames -> frames.limit(MAX_DEPTH)
                .filter(f -> !internal(f.getDeclaringClass()))
                .findFirst()
                .map(f -> f.getClassName() + "." + f.getMethodName() + "(" + Optional.ofNullable(f.getFileName()).orElse("?")
                        + ":" + f.getLineNumber() + ")"))
                .orElse("unknown");
        return new Owner(PID, Thread.currentThread().getName(), System.currentTimeMillis(), site);
    }

    private static boolean internal(Class<?> c) {
        ProtectionDomain d = c.getProtectionDomain();
        return d == ENGINE || d == VERBS || c.getName().startsWith("java.") || c.getName().startsWith("jdk.");
    }

    @Override
    public String toString() {
        return "thread '" + thread + "' (pid " + pid + ") at " + callSite;
    }
}
