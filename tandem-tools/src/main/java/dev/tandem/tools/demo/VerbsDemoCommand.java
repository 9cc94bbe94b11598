package dev.tandem.tools.demo;

import dev.tandem.tools.Adapters;
import dev.tandem.tools.perf.AdapterOpener;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code tandem demo verbs}: two adapters on loopback in this process; connect with private data,
 * Send/Recv, RDMA Write, RDMA Read (each verified), a caught remote access violation, then short
 * write_bw and send_lat runs next to the TCP baseline. Exit code 0 only if every step behaved.
 */
@Command(name = "verbs", sortOptions = false,
        description = {"A guided tour of Tandem on two loopback adapters in this process.",
                "Adapters 127.0.1.1 and 127.0.1.2 connect with private data, then Send/Recv, RDMA Write and RDMA Read",
                "(each verified), a caught remote access violation, and short write_bw and send_lat runs next to",
                "plain TCP. Exit code 0 only if every step behaved as expected; it takes well under a minute."})
public final class VerbsDemoCommand implements Callable<Integer> {
    private final AdapterOpener opener;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    public VerbsDemoCommand() {
        this(Adapters::open);
    }

    public VerbsDemoCommand(AdapterOpener opener) {
        this.opener = opener;
    }

    private record Step(String title, Runnable action) {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        out.println("Tandem demo: two software iWARP adapters in this process, talking RDMA over loopback TCP.");
        out.println();
        boolean ok;
        try (VerbsTour tour = new VerbsTour(out, opener)) {
            DemoPerf perf = new DemoPerf(out, opener);
            List<Step> steps = List.of(
                    new Step("open adapters a (" + VerbsTour.A_IP + ") and b (" + VerbsTour.B_IP + ")", tour::openAdapters),
                    new Step("connect a -> b, exchanging keys in the private data", tour::connect),
                    new Step("Send / Recv", tour::sendReceive),
                    new Step("RDMA Write into b's region", tour::rdmaWrite),
                    new Step("RDMA Read from b's region", tour::rdmaRead),
                    new Step("remote access violation: RDMA Read with a bad rkey", tour::accessViolation),
                    new Step("fatal adapter error on a, then reset", tour::adapterFault),
                    new Step("write_bw next to TCP", perf::writeBandwidth),
                    new Step("send_lat next to TCP", perf::sendLatency));
            ok = run(out, steps);
        }
        out.printf("%ndemo took %.1f s%n", (System.nanoTime() - start) / 1e9);
        out.flush();
        return ok ? 0 : 1;
    }

    private static boolean run(PrintWriter out, List<Step> steps) {
        for (int i = 0; i < steps.size(); i++) {
            Step step = steps.get(i);
            out.printf("[%d/%d] %s%n", i + 1, steps.size(), step.title());
            out.flush();
            try {
                step.action().run();
            } catch (RuntimeException e) {
                out.println("      FAILED: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
                if (!(e instanceof DemoFailure)) {
                    e.printStackTrace(out);
                }
                out.println();
                out.printf("demo FAILED at step %d of %d (%s)%n", i + 1, steps.size(), step.title());
                return false;
            }
            out.println("      ok");
            out.flush();
        }
        out.println();
        out.printf("demo finished: all %d steps behaved as expected%n", steps.size());
        return true;
    }
}
