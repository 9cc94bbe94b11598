package dev.tandem.failover.chaos;

import dev.tandem.verbs.CompletionChannel;
import dev.tandem.verbs.CompletionQueue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One application thread of a node: owns some ends, and in turn polls, watches and posts for each.
 * When a pass does nothing it arms its CQs and waits on its completion channel (at most 1 ms: credits
 * arrive as Writes, which make no local completion). It stops when all its ends are done, or when the
 * drain deadline passes (each end not done is a {@link Check#STALL}).
 */
final class Driver implements Runnable {
    private static final Duration IDLE = Duration.ofMillis(1);
    private final Thread thread;
    private final List<EndPoint> ends = new ArrayList<>();
    private final CompletionChannel channel;
    private final TrafficClock clock;
    private final Findings findings;
    private volatile boolean stopped;

    Driver(String name, CompletionChannel channel, TrafficClock clock, Findings findings) {
        this.thread = new Thread(this, name);
        this.thread.setDaemon(true);
        this.channel = channel;
        this.clock = clock;
        this.findings = findings;
    }

    void add(EndPoint e) {
        ends.add(e);
    }

    CompletionChannel channel() {
        return channel;
    }

    List<EndPoint> ends() {
        return ends;
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** Asks the thread to stop after its current pass. */
    void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        boolean armed = false;
        try {
            while (!stopped && !clock.aborted()) {
                boolean drain = clock.draining();
                boolean progress = false;
                boolean allDone = true;
                for (EndPoint e : ends) {
                    if (e.done(drain)) {
                        continue;
                    }
                    progress |= e.step(drain);
                    allDone &= e.done(drain);
                }
                if (allDone && drain) {
                    return;
                }
                if (clock.drainOverdue()) {
                    for (EndPoint e : ends) {
                        if (!e.done(true)) {
                            findings.add(Check.STALL, "did not drain in time: " + e.describe());
                        }
                    }
                    return;
                }
                if (progress) {
                    armed = false;
                } else if (!armed) {
                    arm(); // then one more pass: a completion that came before arming is polled, one after it wakes the channel
                    armed = true;
                } else {
                    channel.await(IDLE);
                    armed = false;
                }
            }
        } catch (RuntimeException | Error e) {
            findings.add(Check.HARNESS, thread.getName() + " died: " + e + " at " + (e.getStackTrace().length > 0 ? e.getStackTrace()[0] : "?"));
        }
    }

    private void arm() {
        Set<CompletionQueue> cqs = new LinkedHashSet<>();
        for (EndPoint e : ends) {
            cqs.add(e.sendCq());
            cqs.add(e.receiveCq());
        }
        for (CompletionQueue cq : cqs) {
            try {
                cq.requestNotification(false);
            } catch (RuntimeException ex) {
                findings.add(Check.EXCEPTION, thread.getName() + ": requestNotification threw " + ex);
            }
        }
    }
}
