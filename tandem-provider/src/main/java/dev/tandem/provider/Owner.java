package dev.tandem.provider;

import dev.tandem.verbs.RdmaDevice;

import java.security.ProtectionDomain;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who created a resource: process, thread, time and the first caller outside Tandem (the call site a
 * leak report or a rogue-owner report names). Captured with one bounded {@link StackWalker} walk at
 * creation, which is not a data-path operation.
 *
 * @param pid       process id
 * @param thread    name of the creating thread
 * @param createdMs creation time, epoch ms
 * @param callSite  {@code class.method(File.java:line)} of the first frame outside Tandem's layers (the
 *                  verbs, this kit, registered providers) and the JDK, or {@code "unknown"}
 */
public record Owner(long pid, String thread, long createdMs, String callSite) {
    private static final long PID = ProcessHandle.current().pid();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    /**
     * The code of Tandem's layers, whose frames a call site skips: the verbs, this kit, and each
     * provider or layer over devices that {@linkplain #skipFramesOf registered}. By code source, not
     * package name: a provider's tests share its package names, and their frames are call sites.
     */
    private static final Set<ProtectionDomain> INTERNAL = ConcurrentHashMap.newKeySet();
    private static final int MAX_DEPTH = 32;

    static {
        skipFramesOf(RdmaDevice.class);
        skipFramesOf(Owner.class);
    }

    /**
     * Frames of the code that holds {@code anchor} (its jar or classes folder) are Tandem's, not the
     * owner's: a provider or a layer over devices (fail-over) calls this once for its own code, so a
     * leak report names the application that opened the resource, not the layer it went through.
     */
    public static void skipFramesOf(Class<?> anchor) {
        INTERNAL.add(anchor.getProtectionDomain());
    }

    /** The owner of a resource the current thread is creating now. */
    public static Owner capture() {
        String site = WALKER.walk(frames -> frames.limit(MAX_DEPTH)
                .filter(f -> !internal(f.getDeclaringClass()))
                .findFirst()
                .map(f -> f.getClassName() + "." + f.getMethodName() + "(" + Optional.ofNullable(f.getFileName()).orElse("?")
                        + ":" + f.getLineNumber() + ")"))
                .orElse("unknown");
        return new Owner(PID, Thread.currentThread().getName(), System.currentTimeMillis(), site);
    }

    private static boolean internal(Class<?> c) {
        return INTERNAL.contains(c.getProtectionDomain()) || c.getName().startsWith("java.") || c.getName().startsWith("jdk.");
    }

    @Override
    public String toString() {
        return "thread '" + thread + "' (pid " + pid + ") at " + callSite;
    }
}
