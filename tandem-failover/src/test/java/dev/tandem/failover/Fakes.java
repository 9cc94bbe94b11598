package dev.tandem.failover;

import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.QueuePair;
import dev.tandem.verbs.WorkRequest;

import java.lang.reflect.Proxy;
import java.util.List;

/**
 * Stand-ins for the unit tests of the layer's data classes: verbs objects that only need to exist
 * (a region an {@code Sge} names, a window a bind names) and a queue pair that records what is
 * posted to it, or one in a state the test sets. Any other call fails the test.
 */
final class Fakes {
    private Fakes() {
    }

    /** A region that only exists (a work request names it; nothing reads it). */
    static MemoryRegion region() {
        return stub(MemoryRegion.class, "fake region");
    }

    static MemoryWindow window() {
        return stub(MemoryWindow.class, "fake window");
    }

    /** A queue pair numbered {@code qpNumber} that appends every posted send request to {@code posted}. */
    static QueuePair recordingQp(int qpNumber, List<WorkRequest> posted) {
        return (QueuePair) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {QueuePair.class}, (proxy, m, args) ->
                switch (m.getName()) {
                    case "qpNumber" -> qpNumber;
                    case "postSend" -> {
                        posted.add((WorkRequest) args[0]);
                        yield null;
                    }
                    case "toString" -> "fake QP " + qpNumber;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException("fake QP: " + m.getName());
                });
    }

    /** A queue pair numbered {@code qpNumber} whose state is what {@code state} holds when asked. */
    static QueuePair qpIn(int qpNumber, java.util.function.Supplier<QpState> state) {
        return (QueuePair) Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {QueuePair.class}, (proxy, m, args) ->
                switch (m.getName()) {
                    case "qpNumber" -> qpNumber;
                    case "state" -> state.get();
                    case "toString" -> "fake QP " + qpNumber;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException("fake QP: " + m.getName());
                });
    }

    private static <T> T stub(Class<T> type, String name) {
        return type.cast(Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) ->
                switch (m.getName()) {
                    case "toString" -> name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(name + ": " + m.getName());
                }));
    }
}
