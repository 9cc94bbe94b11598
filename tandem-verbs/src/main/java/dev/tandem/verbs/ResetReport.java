package dev.tandem.verbs;

import java.time.Duration;
import java.util.List;

/**
 * What {@link AdapterControl#reset(Duration)} did.
 *
 * @param adapter        the adapter's name
 * @param cause          the fatal error the reset recovered from
 * @param faultToUsable  from the fault to the adapter taking calls again (the recovery time operators see)
 * @param resetDuration  from the reset call to the adapter taking calls again
 * @param rogueResources resources whose owners did not release them by the deadline and that the reset
 *                       closed by force, each named with its owner's thread and call site
 * @param stuckThreads   threads still inside verbs when the quiesce wait (1 s) ran out; 0 normally
 */
public record ResetReport(String adapter, String cause, Duration faultToUsable, Duration resetDuration,
                          List<String> rogueResources, int stuckThreads) {
    public ResetReport {
        rogueResources = List.copyOf(rogueResources);
    }
}
