package dev.tandem.iwarp;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The state of one adapter's link as fault injection sets it ({@link dev.tandem.verbs.LinkControl}): up,
 * or down, a black hole. The engine, the listeners and connect ask {@link #isDown()} before they move a
 * byte. A socket closed while the link is down would tell the peer (FIN), so its close is parked here
 * and done when the link comes up (as TCP sends its FIN once the cable is back), or when the adapter
 * closes. Threads that wait on their own selectors register a watcher that wakes them on every change.
 */
final class Link {
    private final Object lock = new Object();
    private final CopyOnWriteArrayList<Runnable> watchers = new CopyOnWriteArrayList<>();
    /** Sockets closed while the link was down (guarded by lock). */
    private final List<NetworkChannel> parked = new ArrayList<>();
    private volatile boolean down;
    /** The adapter closed: nothing is parked any more (guarded by lock). */
    private boolean released;

    /** True while the link is down: no byte may move. */
    boolean isDown() {
        return down;
    }

    /** Takes the link down; false when it was down already. */
    boolean goDown() {
        synchronized (lock) {
            if (down || released) {
                return false;
            }
            down = true;
        }
        notifyWatchers();
        return true;
    }

    /** Brings the link up and closes what was parked; false when it was up already. */
    boolean goUp() {
        List<NetworkChannel> closing;
        synchronized (lock) {
            if (!down) {
                return false;
            }
            down = false;
            lock.notifyAll();
            closing = new ArrayList<>(parked);
            parked.clear();
        }
        for (NetworkChannel ch : closing) {
            closeQuietly(ch);
        }
        notifyWatchers();
        return true;
    }

    /** Closes {@code ch} now, or once the link is up again while it is down (a close must not tell the peer). */
    void close(NetworkChannel ch) {
        if (ch == null) {
            return;
        }
        synchronized (lock) {
            if (down && !released) {
                parked.add(ch);
                return;
            }
        }
        closeQuietly(ch);
    }

    /** Aborts {@code ch} at once, whatever the link: an RST to the peer (SO_LINGER 0, then close). */
    static void abort(NetworkChannel ch) {
        try {
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException | UnsupportedOperationException e) {
            // closed already: there is nothing left to reset
        }
        closeQuietly(ch);
    }

    /**
     * Resets {@code ch} as a failed adapter does: aborts it now (the peer sees RST), or, while the link is
     * down, parks its close until the link is up as {@link #close} does (a downed link tells the peer nothing).
     */
    void reset(NetworkChannel ch) {
        if (ch == null) {
            return;
        }
        synchronized (lock) {
            if (down && !released) {
                parked.add(ch);
                return;
            }
        }
        abort(ch);
    }

    /** Aborts every socket whose close is parked (a reset from the network); how many there were. */
    int abortParked() {
        List<NetworkChannel> aborting;
        synchronized (lock) {
            aborting = new ArrayList<>(parked);
            parked.clear();
        }
        for (NetworkChannel ch : aborting) {
            abort(ch);
        }
        return aborting.size();
    }

    /** The adapter closed: closes what is parked (the peers learn of it now) and parks nothing from now on. */
    void release() {
        List<NetworkChannel> closing;
        synchronized (lock) {
            released = true;
            lock.notifyAll();
            closing = new ArrayList<>(parked);
            parked.clear();
        }
        for (NetworkChannel ch : closing) {
            closeQuietly(ch);
        }
        notifyWatchers();
    }

    /** Sockets whose close waits for the link (dumps show it). */
    int parked() {
        synchronized (lock) {
            return parked.size();
        }
    }

    /**
     * Waits until the link is up or {@code deadline} (System.nanoTime) passed, without spinning; true when
     * it is up. Returns false at once when the adapter closed while its link is down, and when {@code giveUp}
     * holds as the wait begins or is woken by {@link #wakeWaiters} (the adapter failed).
     */
    boolean awaitUp(long deadline, BooleanSupplier giveUp) throws InterruptedException {
        synchronized (lock) {
            long left;
            while (down && !released && !giveUp.getAsBoolean() && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return !down;
        }
    }

    /** Wakes every thread waiting for the link, so that it asks its {@code giveUp} again (the adapter failed). */
    void wakeWaiters() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /** Runs {@code wake} on every change of the link (from the thread making it); remove it with {@link #unwatch}. */
    void watch(Runnable wake) {
        watchers.add(wake);
    }

    void unwatch(Runnable wake) {
        watchers.remove(wake);
    }

    private void notifyWatchers() {
        for (Runnable w : watchers) {
            w.run();
        }
    }

    private static void closeQuietly(NetworkChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // closing is all that is left to do with it
        }
    }

    @Override
    public String toString() {
        return down ? "down" : "up";
    }
}
