package dev.tandem.ras;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Child JVM of {@link TwoProcessTest}: creates its RAS file in {@code args[0]} (through {@link ProcessRas},
 * with a snapshot source), counts, records an error, registers a PD and a QP in the resource table,
 * prints {@code READY <pid>}, then polls the level of {@code iwarp.rx} (which its RAS duty thread
 * refreshes from the file) and prints {@code LEVEL iwarp.rx <n>} whenever it changes, until killed (or
 * after a minute, so an orphan ends). Its duty thread also writes the dumps asked for from outside.
 */
public final class RasChildProcess {
    static final TraceEvent LEVEL_SEEN = TraceEvent.of("lvlSeen");

    private RasChildProcess() {
    }

    public static void main(String[] args) {
        ProcessRas.configure(RasConfig.defaults().withDir(Path.of(args[0])).withDutyIntervalMs(10));
        ProcessRas.addSnapshotSource(out -> out.begin("adapter", "child0@127.0.0.1").field("qps", 1)
                .begin("qp", "3").field("state", Thread.State.RUNNABLE).end().end());
        RasFile ras = ProcessRas.acquire();
        try {
            String site = StackWalker.getInstance().walk(frames -> frames.findFirst().orElseThrow()).toStackTraceElement().toString();
            ResourceSlot pd = ras.resources().register("PD", 1, "child0 pd 1", Thread.currentThread().getName(), site);
            ResourceSlot qp = ras.resources().register("QP", 3, "child0 qp 3", Thread.currentThread().getName(), site);
            qp.detail("state RTS peer 127.0.1.2:4791");
            Counter sends = ras.counters().allocate(1, "child.sends", 7);
            Counter bytes = ras.counters().allocate(2, "child.bytes", 7);
            for (int i = 0; i < 42; i++) {
                sends.increment();
                bytes.add(1024);
            }
            ras.errorLog().record(new IllegalStateException("QP 17 moved to ERROR"));
            TraceComponent rx = ras.trace().component("iwarp.rx");
            int seen = rx.level();
            System.out.println("READY " + ras.pid());
            System.out.flush();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (System.nanoTime() - deadline < 0) {
                int level = rx.level();
                if (level != seen) {
                    seen = level;
                    if (rx.enabled(TraceLevel.RARE)) {
                        rx.record(TraceLevel.RARE, LEVEL_SEEN, level, 0, 0, 0, "level changed from outside");
                    }
                    System.out.println("LEVEL iwarp.rx " + level);
                    System.out.flush();
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            qp.close();
            pd.close();
        } finally {
            ProcessRas.release();
        }
    }
}
