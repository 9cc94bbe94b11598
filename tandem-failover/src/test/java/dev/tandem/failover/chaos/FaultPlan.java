package dev.tandem.failover.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The faults of one scenario, drawn from its seed before any traffic: what happens, to which node's
 * which adapter, after what random delay, and how long until it is undone.
 */
record FaultPlan(List<Timed> steps) {
    /** One fault. Nodes are 1 (a) and 2 (b); adapters 0 and 1. */
    sealed interface Fault {
        /** A fatal error of the adapter, reset after {@code resetAfterMs}. */
        record Fatal(int node, int adapter, int resetAfterMs) implements Fault {
        }

        /** The adapter's link down, up again after {@code upAfterMs}. */
        record LinkFlap(int node, int adapter, int upAfterMs) implements Fault {
        }

        /** The network resets every connection of the adapter. */
        record ConnectionReset(int node, int adapter) implements Fault {
        }

        /** Fatal errors of a's adapter 0 and b's adapter 1 together, both reset after {@code resetAfterMs}. */
        record CrossDouble(int resetAfterMs) implements Fault {
        }

        /** Fatal errors of both adapters of the node: its connections must end. */
        record WholeNode(int node) implements Fault {
        }

        /** {@code first}; once every connection has all its paths again, at once {@code second}. */
        record SecondWhenBack(Fault first, Fault second) implements Fault {
        }
    }

    /** A fault after {@code delayMs} (from the traffic's start for the first, from the last fault's end after it). */
    record Timed(int delayMs, Fault fault) {
    }

    static FaultPlan of(ScenarioSpec spec) {
        SplittableRandom r = new SplittableRandom(Seeds.mix(spec.seed(), 6));
        int t = (int) spec.traffic().toMillis();
        List<Timed> steps = new ArrayList<>();
        for (int i = 0; i < spec.faults(); i++) {
            int delay = i == 0 ? t * 15 / 100 + r.nextInt(Math.max(1, t * 30 / 100)) : 50 + r.nextInt(350);
            int node = 1 + r.nextInt(2);
            int adapter = r.nextInt(2);
            Fault f = switch (spec.kind()) {
                case FATAL_RESET -> new Fault.Fatal(node, adapter, r.nextInt(301));
                case LINK_DOWN_UP -> new Fault.LinkFlap(node, adapter, 200 + r.nextInt(401));
                case BLIP -> new Fault.LinkFlap(node, adapter, 20 + r.nextInt(101));
                case CONNECTION_RESET -> new Fault.ConnectionReset(node, adapter);
                case SECOND_FAULT_WHEN_BACK -> new Fault.SecondWhenBack(single(r, node, adapter), single(r, node, 1 - adapter));
                case CROSS_DOUBLE -> new Fault.CrossDouble(r.nextInt(301));
                case BOTH_ADAPTERS_OF_A_NODE -> new Fault.WholeNode(node);
                case NONE -> throw new IllegalStateException("NONE has no faults");
            };
            steps.add(new Timed(spec.kind() == FaultKind.BOTH_ADAPTERS_OF_A_NODE ? t * 30 / 100 + r.nextInt(Math.max(1, t * 30 / 100)) : delay, f));
        }
        return new FaultPlan(List.copyOf(steps));
    }

    private static Fault single(SplittableRandom r, int node, int adapter) {
        return switch (r.nextInt(3)) {
            case 0 -> new Fault.Fatal(node, adapter, r.nextInt(301));
            case 1 -> new Fault.LinkFlap(node, adapter, 200 + r.nextInt(401));
            default -> new Fault.ConnectionReset(node, adapter);
        };
    }
}
