package dev.tandem.iwarp;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One named engine thread running duty cycles over the adapters assigned to it (one in DEDICATED
 * mode, all of the process's SHARED adapters otherwise). Its owner stops it: the adapter in
 * DEDICATED mode, the last adapter to leave in SHARED mode.
 */
final class EngineAgent {
    private static final Object SHARED_LOCK = new Object();
    private static EngineAgent shared;

    private final String name;
    private final IdleStrategy idle;
    private final CopyOnWriteArrayList<IwarpDevice> devices = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile IwarpDevice[] snapshot = new IwarpDevice[0];

    private EngineAgent(String name, IdleStrategyKind idleKind) {
        this.name = name;
        this.idle = IdleStrategy.of(idleKind);
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
    }

    static EngineAgent dedicated(IwarpDevice device) {
        EngineAgent a = new EngineAgent("tandem-engine-" + device.name(), device.config().idle());
        a.add(device);
        a.thread.start();
        return a;
    }

    /** The process's shared agent, started on first use; the idle strategy of its first user wins. */
    static EngineAgent shared(IwarpDevice device) {
        synchronized (SHARED_LOCK) {
            if (shared == null) {
                shared = new EngineAgent("tandem-engine-shared", device.config().idle());
                shared.add(device);
                shared.thread.start();
            } else {
                shared.add(device);
            }
            return shared;
        }
    }

    private void add(IwarpDevice d) {
        devices.add(d);
        snapshot = devices.toArray(new IwarpDevice[0]);
    }

    /** Removes an adapter; stops the thread when it served the last one. */
    void remove(IwarpDevice d) {
        boolean stop;
        synchronized (SHARED_LOCK) {
            devices.remove(d);
            snapshot = devices.toArray(new IwarpDevice[0]);
            stop = devices.isEmpty();
            if (stop && shared == this) {
                shared = null;
            }
        }
        if (stop) {
            running = false;
            LockSupport.unpark(thread);
            if (Thread.currentThread() != thread) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    void wake() {
        LockSupport.unpark(thread);
    }

    String threadName() {
        return name;
    }

    boolean isAlive() {
        return thread.isAlive();
    }

    private void run() {
        while (running) {
            int work = 0;
            IwarpDevice[] ds = snapshot;
            for (IwarpDevice d : ds) {
                try {
                    work += d.progress();
                } catch (RuntimeException | Error e) {
                    d.engineFault(e);
                }
            }
            idle.idle(work);
        }
    }
}
