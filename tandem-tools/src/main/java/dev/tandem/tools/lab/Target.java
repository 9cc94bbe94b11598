package dev.tandem.tools.lab;

import java.util.Objects;

/**
 * What {@code lab fail} and {@code lab heal} act on: an adapter's cable, a fabric's switch, or (switchless)
 * the cable between two hosts. {@link #parse} checks only the form; {@link LabPlan#check} checks that the
 * lab has it.
 */
public sealed interface Target permits Target.Adapter, Target.Switch, Target.Cable {
    /** The forms a target may take, for error messages and help. */
    String FORMS = "hI.aK (adapter K of host I; alias hostI.aK), switchK (the switch of fabric K, switched labs)"
            + " or hI.aK-hJ.aK (the cable between two adapters, switchless labs)";

    /** The name as the command line and the output write it, e.g. {@code h1.a2}. */
    String name();

    /**
     * Adapter {@code adapter} of host {@code host}: failing it takes the adapter's link down inside its host
     * (the host's routes through it go; its peers' packets to it vanish, no FIN or RST).
     */
    record Adapter(int host, int adapter) implements Target {
        public Adapter {
            if (host < 1 || adapter < 1) {
                throw new IllegalArgumentException("hosts and adapters count from 1: h" + host + ".a" + adapter);
            }
        }

        @Override
        public String name() {
            return "h" + host + ".a" + adapter;
        }
    }

    /** The switch of fabric {@code fabric} (switched labs): failing it stops it forwarding and routing; hosts keep their link. */
    record Switch(int fabric) implements Target {
        public Switch {
            if (fabric < 1) {
                throw new IllegalArgumentException("fabrics count from 1: switch" + fabric);
            }
        }

        @Override
        public String name() {
            return "switch" + fabric;
        }
    }

    /** The cable between two adapters (switchless labs): failing it takes both ends down. */
    record Cable(Adapter one, Adapter other) implements Target {
        public Cable {
            Objects.requireNonNull(one, "one");
            Objects.requireNonNull(other, "other");
        }

        @Override
        public String name() {
            return one.name() + "-" + other.name();
        }
    }

    /**
     * Parses {@code h1.a1}, {@code host1.a1}, {@code switch1} or {@code h1.a1-h2.a1}.
     *
     * @throws IllegalArgumentException naming the text and the {@link #FORMS valid forms}
     */
    static Target parse(String text) {
        return TargetForms.parse(text);
    }
}
