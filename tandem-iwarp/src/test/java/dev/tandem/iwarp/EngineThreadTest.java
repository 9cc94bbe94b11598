package dev.tandem.iwarp;

import dev.tandem.provider.ThreadingMode;
import dev.tandem.verbs.Listener;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Every thread the adapter starts is named and stops when its owner closes. */
class EngineThreadTest {

    private static Set<String> tandemThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("tandem-")).collect(Collectors.toSet());
    }

    @Test
    void dedicatedEngineAndListenerThreadsStopOnClose() {
        Set<String> before = tandemThreads();
        IwarpDevice d = IwarpDevice.open(IwarpConfig.of("127.0.1.5"));
        Listener l = d.listen(new InetSocketAddress("127.0.1.5", 0), 1);
        String listenerThread = "tandem-" + d.name() + "-listen-" + l.localAddress().getPort();
        assertThat(tandemThreads()).contains(d.engineThreadName(), listenerThread);
        l.close();
        assertThat(tandemThreads()).doesNotContain(listenerThread);
        d.close();
        assertThat(d.isEngineRunning()).as("engine thread of a closed adapter").isFalse();
        assertThat(tandemThreads()).isEqualTo(before);
    }

    @Test
    void sharedEngineStopsWithItsLastAdapter() {
        IwarpDevice a = IwarpDevice.open(IwarpConfig.of("127.0.1.6").withThreading(ThreadingMode.SHARED));
        IwarpDevice b = IwarpDevice.open(IwarpConfig.of("127.0.1.7").withThreading(ThreadingMode.SHARED));
        assertThat(a.engineThreadName()).isEqualTo(b.engineThreadName()).isEqualTo("tandem-engine-shared");
        a.close();
        assertThat(b.isEngineRunning()).as("shared engine while an adapter still uses it").isTrue();
        b.close();
        assertThat(b.isEngineRunning()).as("shared engine after its last adapter closed").isFalse();
    }
}
