package dev.tandem.tools.demo;

import dev.tandem.failover.check.Verdict;
import dev.tandem.tools.lab.LabPreflight;
import dev.tandem.tools.perf.JsonWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.Console;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * {@code tandem demo}: the fail-over demo (see {@link FailoverDemo}), with a verdict table at the end
 * (or one JSON object with {@code --json}). Exit code 0 only with a clean verdict after both
 * fail-overs; otherwise it says what went wrong. {@code --lab} runs it across a lab of network namespaces
 * with nodes a and b as two processes and a pulled cable ({@link LabDemo}; needs root, and says so
 * otherwise). {@code tandem demo verbs} is the tour of the verbs.
 */
@Command(name = "demo", sortOptions = false, subcommands = VerbsDemoCommand.class,
        description = {"Fail-over: two nodes in this process, two adapters each on loopback addresses, one connection",
                "carrying a checked stream of Sends and Writes. A fatal error hits the adapter that carries it; later,",
                "after that adapter was reset, the other path's link goes down. Every step is narrated; the verdict",
                "says what was sent, what arrived, and each fail-over's pause. Exit code 0 only with nothing lost,",
                "duplicated or reordered. --lab runs it across network namespaces with a pulled cable (root).",
                "`tandem demo verbs` is the tour of the verbs."})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "print the verdict as one JSON object instead of the narration and table")
    boolean json;

    @Option(names = {"-n", "--messages"}, paramLabel = "N", description = "messages to stream (default ${DEFAULT-VALUE})")
    long messages = 6000;

    @Option(names = "--lab", description = {"run it across a lab of network namespaces instead (needs root): nodes a and b as two",
            "processes in two hosts; midway the cable of the adapter carrying the connection is pulled, then plugged in again"})
    boolean lab;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    private final Supplier<LabPreflight> preflight;

    /** The demo as picocli makes it. */
    public DemoCommand() {
        this(LabPreflight::ofThisProcess);
    }

    /** The demo with {@code preflight} saying whether root and {@code ip} are there for {@code --lab} (tests give their own). */
    DemoCommand(Supplier<LabPreflight> preflight) {
        this.preflight = preflight;
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (messages < 30) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--messages " + messages + ": give 30 or more");
        }
        LabPreflight labPreflight = lab ? preflight.get() : null;
        if (lab && labPreflight.refusal().isPresent()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("tandem demo --lab: " + labPreflight.refusal().get() + "; 'tandem demo' runs without root, in this process");
            err.flush();
            return 1;
        }
        if (!json) {
            out.println(lab ? "Tandem fail-over demo across a lab: nodes a and b as two processes in two network namespaces, two adapters"
                    + " each, one connection." : "Tandem fail-over demo: nodes a and b, two software iWARP adapters each, one connection.");
            out.println();
        }
        FailoverDemo.Result r;
        try {
            r = lab ? runLab(out, labPreflight) : runInProcess(out);
        } catch (DemoFailure e) {
            if (json) {
                out.println("{\"clean\": false, \"failure\": " + quote(e.getMessage()) + "}");
            } else {
                out.println("demo FAILED: " + e.getMessage());
            }
            out.flush();
            return 1;
        }
        if (json) {
            out.println(json(r));
        } else {
            table(out, r);
            conclusion(out, r);
        }
        out.flush();
        return r.ok() ? 0 : 1;
    }

    private FailoverDemo.Result runInProcess(PrintWriter out) {
        try (FailoverDemo demo = new FailoverDemo(out, json, !json && onTerminal())) {
            return demo.run(messages);
        }
    }

    private FailoverDemo.Result runLab(PrintWriter out, LabPreflight labPreflight) {
        try (LabDemo demo = new LabDemo(out, json, !json && onTerminal(), labPreflight.ipRunner(), LabDemo.ownPrefix())) {
            return demo.run(messages);
        }
    }

    /** Whether this process writes to a terminal: then the progress line is rewritten in place. */
    private static boolean onTerminal() {
        Console c = System.console();
        return c != null && c.isTerminal();
    }

    /** The verdict's members, each fail-over's pause, and whether the demo passed ({@code clean}), as one JSON object. */
    static String json(FailoverDemo.Result r) {
        StringBuilder pauses = new StringBuilder("[");
        for (int i = 0; i < r.pausesMs().size(); i++) {
            pauses.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", r.pausesMs().get(i)));
        }
        pauses.append(']');
        return "{" + r.verdict().jsonMembers() + ", \"failovers\": " + r.pausesMs().size() + ", \"expected_failovers\": "
                + r.expectedFailovers() + ", \"pause_ms\": " + pauses + ", \"stream_clean\": " + r.verdict().clean()
                + (r.failure() != null ? ", \"failure\": " + quote(r.failure()) : "") + ", \"clean\": " + r.ok() + "}";
    }

    private static String quote(String s) {
        return new JsonWriter().value(s).toString();
    }

    private static void table(PrintWriter out, FailoverDemo.Result r) {
        Verdict v = r.verdict();
        out.println();
        row(out, "messages sent", v.messagesSent());
        row(out, "messages received", v.messagesReceived());
        row(out, "bytes sent", v.bytesSent());
        row(out, "bytes received", v.bytesReceived());
        row(out, "blocks written", v.blocksWritten());
        row(out, "blocks verified", v.blocksVerified());
        row(out, "lost", v.lost());
        row(out, "duplicated", v.duplicated());
        row(out, "reordered", v.reordered());
        out.printf(Locale.ROOT, "  %-28s %14s%n", "checksums", v.checksumErrors() == 0 ? "equal" : v.checksumErrors() + " differ");
        row(out, "errors the application saw", v.errors() + v.refused());
        List<Double> pauses = r.pausesMs();
        for (int i = 0; i < pauses.size(); i++) {
            out.printf(Locale.ROOT, "  %-28s %11.1f ms%n", "pause of fail-over " + (i + 1), pauses.get(i));
        }
        if (!pauses.isEmpty()) {
            out.println("  (a pause: from the fault to the application's next completion)");
        }
        out.println();
    }

    private static void row(PrintWriter out, String what, long n) {
        out.printf(Locale.ROOT, "  %-28s %14d%n", what, n);
    }

    static void conclusion(PrintWriter out, FailoverDemo.Result r) {
        if (r.ok()) {
            out.println("verdict: clean: nothing lost, duplicated or reordered, checksums equal, through " + r.pausesMs().size()
                    + (r.pausesMs().size() == 1 ? " fail-over" : " fail-overs"));
            return;
        }
        Verdict v = r.verdict();
        out.println("verdict: NOT clean");
        if (r.failure() != null) {
            out.println("  what went wrong: " + r.failure());
        }
        if (r.pausesMs().size() != r.expectedFailovers()) {
            out.println("  fail-overs: " + r.pausesMs().size() + " of the " + r.expectedFailovers() + " expected");
        }
        if (!v.errorsByStatus().isEmpty()) {
            out.println("  completions in error: " + v.errorsByStatus());
        }
        for (String p : v.problems()) {
            out.println("  " + p);
        }
    }
}
