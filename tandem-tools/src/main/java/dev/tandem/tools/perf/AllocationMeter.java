package dev.tandem.tools.perf;

import java.lang.management.ManagementFactory;

/**
 * Bytes the current thread allocates, from {@code com.sun.management.ThreadMXBean} (an exported
 * JDK API). Used around a measured loop to report allocated bytes per operation.
 */
public final class AllocationMeter {
    private static final com.sun.management.ThreadMXBean MX = threadBean();

    private AllocationMeter() {
    }

    private static com.sun.management.ThreadMXBean threadBean() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean bean
                && bean.isThreadAllocatedMemorySupported()) {
            if (!bean.isThreadAllocatedMemoryEnabled()) {
                bean.setThreadAllocatedMemoryEnabled(true);
            }
            return bean;
        }
        return null;
    }

    public static boolean supported() {
        return MX != null;
    }

    /** Bytes allocated so far by the calling thread, or -1 when the JVM cannot tell. */
    public static long currentThreadBytes() {
        return MX == null ? -1 : MX.getCurrentThreadAllocatedBytes();
    }

    /** Bytes per operation between two readings, or NaN when the JVM cannot tell. */
    public static double perOperation(long before, long after, long operations) {
        if (before < 0 || after < 0 || operations <= 0) {
            return Double.NaN;
        }
        return (after - before) / (double) operations;
    }
}
