package dev.tandem.failover;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a fail-over device's monitor thread busy until closed (bounded): its layer then reads no mailbox,
 * runs no move and handles no adapter event meanwhile, as a layer that is slow to react; a test makes
 * things happen to the adapters in that time.
 */
final class Busy implements AutoCloseable {
    private final CountDownLatch done = new CountDownLatch(1);

    private Busy() {
    }

    static Busy hold(FailoverDevice d) throws InterruptedException {
        Busy b = new Busy();
        CountDownLatch busy = new CountDownLatch(1);
        d.monitor().submit(() -> {
            busy.countDown();
            try {
                b.done.await(Opened.WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!busy.await(Opened.WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the monitor of " + d + " did not take the task");
        }
        return b;
    }

    @Override
    public void close() {
        done.countDown();
    }
}
