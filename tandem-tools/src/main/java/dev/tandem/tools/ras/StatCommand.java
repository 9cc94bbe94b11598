package dev.tandem.tools.ras;

import dev.tandem.tools.text.TimeFormat;
import dev.tandem.tools.text.ToolException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code tandem stat}: the Tandem processes of a RAS directory (running, and dead ones whose file is
 * left) and their counters (as text, JSON or Prometheus) or resource tables (text or JSON), read from
 * outside the process, once or every few seconds.
 */
@Command(name = "stat", sortOptions = false,
        description = {"Lists the running and recently dead Tandem processes (their RAS files) and prints their counters,",
                "or with --resources their live verbs resources (type, id, name, owner pid and thread, creation time, call site).",
                "Reads the files from outside: works from another shell while a process runs, and after it died."},
        footer = {"", "Exit code 0, 1 when no process or file is found, 2 on bad usage.",
                "Examples:", "  tandem stat", "  tandem stat --pid 4711 --filter bytes --watch", "  tandem stat --pid 4711 --resources",
                "  tandem stat --prometheus > /var/lib/node_exporter/tandem.prom"})
public final class StatCommand implements Callable<Integer> {
    static final double MIN_WATCH_SECONDS = 0.1;
    static final double MAX_WATCH_SECONDS = 3600;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Mixin
    ProcessSelection selection;

    @Option(names = "--filter", paramLabel = "TEXT", description = "only counters whose label contains TEXT (repeat: any of them)")
    List<String> filters = new ArrayList<>();

    @Option(names = "--type", paramLabel = "TYPE", converter = CounterTypeConverter.class,
            description = "only counters of this type: adapter, qp, terminate, engine, cq, srq, mr, failover, or a type id (repeat: any of them)")
    List<Integer> types = new ArrayList<>();

    @Option(names = "--watch", arity = "0..1", fallbackValue = "1", paramLabel = "SECONDS",
            description = "refresh every SECONDS (default 1) until interrupted")
    Double watch;

    @Option(names = "--count", paramLabel = "K", description = "with --watch: stop after K refreshes")
    Integer count;

    @Option(names = "--json", description = "one JSON object (per refresh, one per line)")
    boolean json;

    @Option(names = "--prometheus", description = "Prometheus text exposition format")
    boolean prometheus;

    @Option(names = "--resources", description = "print the resource table (live PDs, MRs, QPs, ... with their owners) instead of counters")
    boolean resources;

    @Override
    public Integer call() {
        validate();
        CounterFilter filter = new CounterFilter(filters, types);
        PrintWriter out = spec.commandLine().getOut();
        boolean strict = selection.pid().isPresent();
        try {
            for (int frame = 1; ; frame++) {
                long now = System.currentTimeMillis();
                Selection s = selection.select(now);
                if (watch == null) {
                    s.failIfEmpty("a process creates its RAS file when it opens its first adapter; give --dir if it uses another directory");
                }
                if (resources) {
                    printResources(out, ResourceFrame.read(s, now, strict), now);
                } else {
                    print(out, StatFrame.read(s, filter, now, strict), now);
                }
                out.flush();
                if (watch == null || (count != null && frame >= count) || !pause()) {
                    return 0;
                }
            }
        } catch (ToolException e) {
            return e.report(spec);
        }
    }

    private void print(PrintWriter out, StatFrame frame, long now) {
        if (json) {
            out.println(StatJson.of(frame));
        } else if (prometheus) {
            if (watch != null) {
                out.println("# tandem stat at " + TimeFormat.iso(now));
            }
            StatPrometheus.print(out, frame);
        } else {
            if (watch != null) {
                out.println("=== tandem stat every " + watch + " s at " + TimeFormat.iso(now) + " (Ctrl-C stops) ===");
            }
            StatText.print(out, frame);
            if (watch != null) {
                out.println();
            }
        }
    }

    private void printResources(PrintWriter out, ResourceFrame frame, long now) {
        if (json) {
            out.println(ResourceJson.of(frame));
            return;
        }
        if (watch != null) {
            out.println("=== tandem stat --resources every " + watch + " s at " + TimeFormat.iso(now) + " (Ctrl-C stops) ===");
        }
        ResourceText.print(out, frame);
        if (watch != null) {
            out.println();
        }
    }

    /** Waits one watch interval; false when interrupted. */
    private boolean pause() {
        try {
            TimeUnit.MICROSECONDS.sleep(Math.round(watch * 1_000_000));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void validate() {
        if (json && prometheus) {
            throw new ParameterException(spec.commandLine(), "--json and --prometheus exclude each other: choose one format");
        }
        if (resources && prometheus) {
            throw new ParameterException(spec.commandLine(), "--resources has no Prometheus format (resources are not metrics):"
                    + " use text or --json");
        }
        if (resources && (!filters.isEmpty() || !types.isEmpty())) {
            throw new ParameterException(spec.commandLine(), (filters.isEmpty() ? "--type" : "--filter")
                    + " selects counters; --resources prints the whole resource table");
        }
        if (watch != null && !(watch >= MIN_WATCH_SECONDS && watch <= MAX_WATCH_SECONDS)) {
            throw new ParameterException(spec.commandLine(), "--watch " + watch + " is out of range: give "
                    + MIN_WATCH_SECONDS + ".." + MAX_WATCH_SECONDS + " seconds");
        }
        if (count != null && watch == null) {
            throw new ParameterException(spec.commandLine(), "--count only applies with --watch");
        }
        if (count != null && count < 1) {
            throw new ParameterException(spec.commandLine(), "--count " + count + " is out of range: give 1 or more refreshes");
        }
        for (String f : filters) {
            if (f.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "--filter is empty: give part of a counter label, e.g. bytes_sent");
            }
        }
        selection.pid();
    }
}
