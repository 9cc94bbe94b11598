package dev.tandem.ras;

import java.nio.file.Path;

/**
 * Child JVM of {@link RasSwitchTest}: creates its RAS file in {@code args[0]}, updates a counter
 * through every update method, asks a component at level 9 whether level 1 is enabled, closes the
 * file (kept on disk) and prints {@code SWITCH <on> ENABLED <enabled> VALUE <value>}.
 */
public final class RasSwitchChild {
    private RasSwitchChild() {
    }

    public static void main(String[] args) {
        boolean enabled;
        long value;
        try (RasFile ras = RasFile.create(RasConfig.defaults().withDir(Path.of(args[0])).withDutyIntervalMs(0))) {
            Counter c = ras.counters().allocate(1, "child.switched", 1);
            c.increment();
            c.add(10);
            c.incrementAtomic();
            c.addAtomic(100);
            c.setMax(50);
            c.setMaxAtomic(60);
            value = c.get();
            TraceComponent rx = ras.trace().component("iwarp.rx");
            rx.setLevel(TraceLevel.MAX);
            enabled = rx.enabled(TraceLevel.ERROR);
        }
        System.out.println("SWITCH " + RasSwitch.ON + " ENABLED " + enabled + " VALUE " + value);
    }
}
