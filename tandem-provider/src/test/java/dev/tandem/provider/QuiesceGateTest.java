package dev.tandem.provider;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The quiesce gate counts threads inside verbs, refuses entries once shut, and waits for the ones inside. */
class QuiesceGateTest {

    @Test
    void shutRefusesNewEntriesAndWaitsForTheThreadsInside() throws Exception {
        QuiesceGate gate = new QuiesceGate();
        assertThat(gate.tryEnter()).isTrue();
        assertThat(gate.tryEnter()).isTrue();
        gate.leave();
        assertThat(gate.inside()).isEqualTo(1);

        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread verb = Thread.ofPlatform().name("test-verb").start(() -> {
            if (gate.tryEnter()) {
                entered.countDown();
                try {
                    release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    gate.leave();
                }
            }
        });
        assertThat(entered.await(5, TimeUnit.SECONDS)).as("the verb thread entered").isTrue();
        gate.leave();

        gate.shut();
        assertThat(gate.isShut()).isTrue();
        assertThat(gate.tryEnter()).as("entries are refused once shut").isFalse();
        assertThat(gate.awaitEmpty(TimeUnit.MILLISECONDS.toNanos(20))).as("one thread is still inside").isEqualTo(1);

        release.countDown();
        assertThat(gate.awaitEmpty(TimeUnit.SECONDS.toNanos(5))).as("the thread left").isZero();
        verb.join(5000);
        assertThat(verb.isAlive()).isFalse();

        gate.open();
        assertThat(gate.tryEnter()).as("open again after a reset").isTrue();
        assertThat(gate.inside()).isEqualTo(1);
        gate.leave();
        assertThat(gate.inside()).isZero();
    }

    @Test
    void shutAndOpenAreIdempotent() {
        QuiesceGate gate = new QuiesceGate();
        gate.shut();
        gate.shut();
        assertThat(gate.inside()).isZero();
        assertThat(gate.tryEnter()).isFalse();
        gate.open();
        gate.open();
        assertThat(gate.isShut()).isFalse();
        assertThat(gate.tryEnter()).isTrue();
    }
}
