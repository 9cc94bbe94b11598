package dev.tandem.failover;

import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventSubscription;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.ResourceClosedException;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The fail-over device's own thread ({@code tandem-failover-monitor-DEVICE}): it wakes first-level
 * CQs whose adapter CQs had a completion while the application waits, posts the proof a batch of
 * Sends and Writes is due after {@link FailoverConfig#proofAfter()}, and passes the adapters' async
 * events on as the device's, naming the fail-over resources. Every {@value #IDLE_MS} ms it sweeps the
 * first-level CQs nobody polled meanwhile, so that their completions (and an overflow) show without a
 * poll. The device stops it when it closes.
 */
final class Monitor {
    static final int IDLE_MS = 50;
    private static final Duration IDLE = Duration.ofMillis(IDLE_MS);

    private final FailoverDevice device;
    private final AsyncEventSubscription[] subscriptions;
    private final Set<FailoverQueuePair> unproven = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile boolean running = true;
    private long lastSweep = System.nanoTime();

    Monitor(FailoverDevice device) {
        this.device = device;
        this.subscriptions = new AsyncEventSubscription[device.adapterCount()];
        for (int k = 0; k < subscriptions.length; k++) {
            subscriptions[k] = device.adapter(k).subscribeAsyncEvents();
        }
        this.thread = Thread.ofPlatform().daemon().name("tandem-failover-monitor-" + device.name()).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    Thread thread() {
        return thread;
    }

    /** {@code qp} has Sends or Writes no proof covers yet. */
    void watch(FailoverQueuePair qp) {
        unproven.add(qp);
    }

    void unwatch(FailoverQueuePair qp) {
        unproven.remove(qp);
    }

    private void run() {
        long proofAfter = device.config().proofAfter().toNanos();
        while (running) {
            Duration wait = unproven.isEmpty() ? IDLE : device.config().proofAfter();
            CompletionQueue cq;
            try {
                cq = device.adapterEvents.await(wait);
                while (cq != null) {
                    if (device.ownerOf(cq) instanceof FirstLevelCq first) {
                        first.adapterEvent();
                    }
                    cq = device.adapterEvents.await(Duration.ZERO);
                }
            } catch (ResourceClosedException e) {
                return;
            }
            long now = System.nanoTime();
            if (now - lastSweep >= IDLE.toNanos()) {
                lastSweep = now;
                for (FirstLevelCq first : device.firstLevelCqs()) {
                    first.sweep(IDLE.toNanos());
                }
            }
            for (FailoverQueuePair qp : unproven) {
                if (!qp.proveIfOlderThan(proofAfter)) {
                    unproven.remove(qp);
                }
            }
            passEventsOn();
        }
    }

    private void passEventsOn() {
        for (int k = 0; k < subscriptions.length; k++) {
            AsyncEvent e;
            while ((e = subscriptions[k].poll(Duration.ZERO)) != null) {
                Object resource = e.resource();
                Object mine = resource instanceof QueuePair q ? device.routeOf(k, q.qpNumber()) : device.ownerOf(resource);
                if (mine instanceof FailoverQueuePair qp && !qp.reports(k, e.type())) {
                    continue;
                }
                if (mine != null) {
                    device.raise(new AsyncEvent(e.type(), mine, e.detail()));
                }
            }
        }
    }

    /** Stops the thread and waits (bounded) for it to end. */
    void stop() {
        running = false;
        for (AsyncEventSubscription s : subscriptions) {
            s.close();
        }
        device.adapterEvents.close();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            throw new IllegalStateException("monitor thread of " + device.name() + " did not stop within 5 s");
        }
    }
}
