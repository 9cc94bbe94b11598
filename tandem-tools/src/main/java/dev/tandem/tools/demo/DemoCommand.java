package dev.tandem.tools.demo;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code tandem demo}: the fail-over demo (see {@link FailoverDemo}), with a verdict table at the end
 * (or one JSON object with {@code --json}). Exit code 0 only with a clean verdict after both
 * fail-overs. {@code tandem demo verbs} is the tour of the verbs.
 */
@Command(name = "demo", sortOptions = false, subcommands = VerbsDemoCommand.class,
        description = {"Fail-over: two nodes in this process, two adapters each on loopback addresses, one connection",
                "carrying a checked stream of Sends and Writes. A fatal error hits the adapter that carries it; later,",
                "after that adapter was reset, the other path's link goes down. Every step is narrated; the verdict",
                "says what was sent, what arrived, and each fail-over's pause. Exit code 0 only with nothing lost,",
                "duplicated or reordered. `tandem demo verbs` is the tour of the verbs."})
public final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--json", description = "print the verdict as one JSON object instead of the narration and table")
    boolean json;

    @Option(names = {"-n", "--messages"}, paramLabel = "N", description = "messages to stream (default ${DEFAULT-VALUE})")
    long messages = 6000;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** The demo as picocli makes it. */
    public DemoCommand() {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (messages < 30) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--messages " + messages + ": give 30 or more");
        }
        if (!json) {
            out.println("Tandem fail-over demo: nodes a and b, two software iWARP adapters each, one connection.");
            out.println();
        }
        Verdict v;
        try (FailoverDemo demo = new FailoverDemo(out, json)) {
            v = demo.run(messages);
        } catch (DemoFailure e) {
            out.println("demo FAILED: " + e.getMessage());
            out.flush();
            return 1;
        }
        boolean ok = v.clean() && v.pausesMs().size() >= 2;
        if (json) {
            out.println(v.json());
        } else {
            table(out, v);
            out.println(ok ? "verdict: clean: nothing lost, duplicated or reordered, checksums equal, through "
                    + v.pausesMs().size() + " fail-overs" : "verdict: NOT clean" + (v.firstError() != null ? " (first error: "
                    + v.firstError() + ")" : ""));
        }
        out.flush();
        return ok ? 0 : 1;
    }

    private static void table(PrintWriter out, Verdict v) {
        out.println();
        out.printf(Locale.ROOT, "  %-28s %14s%n", "", "");
        out.printf(Locale.ROOT, "  %-28s %14d%n", "messages sent", v.messagesSent());
        out.printf(Locale.ROOT, "  %-28s %14d%n", "messages received", v.messagesReceived());
        out.printf(Locale.ROOT, "  %-28s %14d%n", "bytes sent", v.bytesSent());
        out.printf(Locale.ROOT, "  %-28s %14d%n", "bytes received", v.bytesReceived());
        out.printf(Locale.ROOT, "  %-28s %14d%n", "lost", v.lost());
        out.printf(Locale.ROOT, "  %-28s %14d%n", "duplicated", v.duplicated());
        out.printf(Locale.ROOT, "  %-28s %14d%n", "reordered", v.reordered());
        out.printf(Locale.ROOT, "  %-28s %14s%n", "checksums", v.checksumErrors() == 0 ? "equal" : v.checksumErrors() + " differ");
        out.printf(Locale.ROOT, "  %-28s %14d%n", "errors the application saw", v.errors());
        for (int i = 0; i < v.pausesMs().size(); i++) {
            out.printf(Locale.ROOT, "  %-28s %11.1f ms%n", "pause of fail-over " + (i + 1), v.pausesMs().get(i));
        }
        if (!v.pausesMs().isEmpty()) {
            out.printf(Locale.ROOT, "  %-42s%n", "(a pause: from the fault to the application's next completion)");
        }
        out.println();
    }
}
