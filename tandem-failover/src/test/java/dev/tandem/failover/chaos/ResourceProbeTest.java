package dev.tandem.failover.chaos;

import org.junit.jupiter.api.Test;

import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** The resource check sees a thread and a socket left behind, and nothing once they are gone. */
class ResourceProbeTest {
    @Test
    void aThreadAndASocketLeftBehindAreFindingsAndGoneTheyAreNot() throws Exception {
        ResourceProbe before = ResourceProbe.take();
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "probe-test-leftover");
        t.start();
        ServerSocketChannel s = ServerSocketChannel.open();
        s.bind(new java.net.InetSocketAddress("127.0.1.1", 0));
        Findings left = new Findings(new TrafficClock());
        ResourceProbe.check(before, Duration.ofMillis(50), left);
        assertThat(left.count(Check.THREADS)).isEqualTo(1);
        assertThat(left.count(Check.DESCRIPTORS)).isEqualTo(1);
        assertThat(left.kept().get(1).what()).contains("LISTEN").contains("127.0.1.1");

        release.countDown();
        s.close();
        Findings none = new Findings(new TrafficClock());
        ResourceProbe.check(before, Duration.ofSeconds(5), none);
        assertThat(none.kept()).isEmpty();
    }
}
