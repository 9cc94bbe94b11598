package dev.tandem.tools.ras;

import dev.tandem.ras.TraceLevel;
import dev.tandem.ras.TraceLevelEntry;
import dev.tandem.ras.TraceRecord;
import dev.tandem.tools.text.TextTable;
import dev.tandem.tools.text.TimeFormat;
import dev.tandem.tools.text.ToolException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code tandem trace}: a process's trace levels (list, show, set while it runs) and its trace ring.
 */
@Command(name = "trace", sortOptions = false,
        description = {"Shows or changes the trace levels of a Tandem process, or prints its trace ring.",
                "  tandem trace --pid P                    lists the components and their levels",
                "  tandem trace --pid P COMPONENT          shows one component's level",
                "  tandem trace --pid P COMPONENT LEVEL    sets it in the running process (it applies it within a second)",
                "  tandem trace --pid P --records          prints the trace ring, oldest first",
                "Levels: 0 off, 1 error, 2 rare, 4 entry/exit, 5 internals, 7 hot entry/exit, 8 hot internals, 9 data dumps;",
                "a component at level N records events of levels 1..N."},
        footer = {"", "Exit code 0, 1 when the process or its file is not found or it is not running (for setting),",
                "2 on bad usage (also an unknown component or a level outside 0..9)."})
public final class TraceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--pid", required = true, paramLabel = "PID", description = "the process")
    long pid;

    @Option(names = "--dir", paramLabel = "DIR", description = "RAS directory (default ${sys:java.io.tmpdir}/tandem)")
    Path dir;

    @Option(names = "--records", description = "print the trace ring (time, thread, component, level, event, a..d, text)")
    boolean records;

    @Option(names = "--last", paramLabel = "N", description = "with --records: only the newest N records")
    Integer last;

    @Parameters(index = "0", arity = "0..1", paramLabel = "COMPONENT", description = "a trace component, e.g. iwarp.rx")
    String component;

    @Parameters(index = "1", arity = "0..1", paramLabel = "LEVEL", description = "the level to set, 0..9")
    String level;

    @Override
    public Integer call() {
        validate();
        Path d = dir != null ? dir : RasFiles.defaultDir();
        PrintWriter out = spec.commandLine().getOut();
        try {
            if (records) {
                printRecords(out, d);
            } else if (level != null) {
                setLevel(out, d, parseLevel());
            } else {
                printLevels(out, d);
            }
            out.flush();
            return 0;
        } catch (ToolException e) {
            return e.report(spec);
        }
    }

    private void validate() {
        if (pid < 1) {
            throw new ParameterException(spec.commandLine(), "--pid " + pid + " is not a process id: give a positive number");
        }
        if (records && component != null) {
            throw new ParameterException(spec.commandLine(), "--records prints the whole ring; do not also give COMPONENT or LEVEL");
        }
        if (last != null && !records) {
            throw new ParameterException(spec.commandLine(), "--last only applies with --records");
        }
        if (last != null && last < 1) {
            throw new ParameterException(spec.commandLine(), "--last " + last + " is out of range: give 1 or more records");
        }
        if (level != null) {
            parseLevel();
        }
        if (component != null && component.isBlank()) {
            throw new ParameterException(spec.commandLine(), "COMPONENT is empty: give a component name, e.g. iwarp.rx");
        }
    }

    private int parseLevel() {
        int n;
        try {
            n = Integer.parseInt(level.strip());
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "LEVEL '" + level + "' is not a number: give 0..9", e);
        }
        try {
            return TraceLevel.check(n);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "LEVEL " + n + " is out of range: " + e.getMessage(), e);
        }
    }

    private void printLevels(PrintWriter out, Path d) {
        ProcessView p = RasFiles.open(d, pid);
        List<TraceLevelEntry> levels = RasFiles.read(p.file(), r -> r.traceLevels());
        if (component != null) {
            TraceLevelEntry e = find(p, levels);
            out.println(p.title() + ": " + e.component() + " " + e.level() + " (" + TraceLevel.describe(e.level()) + ")");
            return;
        }
        out.println(p.title() + ": " + levels.size() + (levels.size() == 1 ? " trace component" : " trace components"));
        if (levels.isEmpty()) {
            return;
        }
        TextTable table = new TextTable("COMPONENT", ">LEVEL", "MEANING");
        for (TraceLevelEntry e : levels) {
            table.row(e.component(), e.level(), TraceLevel.describe(e.level()));
        }
        table.print(out, "  ");
    }

    private void setLevel(PrintWriter out, Path d, int newLevel) {
        ProcessView p = RasFiles.open(d, pid);
        TraceLevelEntry before = find(p, RasFiles.read(p.file(), r -> r.traceLevels()));
        if (!p.alive()) {
            throw new ToolException("process " + pid + " is not running (its file " + p.file()
                    + " is kept for post-mortem reading); a trace level set in it would change nothing");
        }
        if (!p.live()) {
            throw new ToolException("process " + pid + " has " + p.fileState() + " its RAS file " + p.file()
                    + "; a trace level set in it would change nothing");
        }
        RasFiles.read(p.file(), r -> {
            try {
                r.setTraceLevel(before.component(), newLevel);
            } catch (IllegalStateException e) {
                throw new ToolException(e.getMessage(), e);
            }
            return null;
        });
        out.println(p.title() + ": " + before.component() + " " + before.level() + " (" + TraceLevel.describe(before.level())
                + ") -> " + newLevel + " (" + TraceLevel.describe(newLevel) + "); the process applies it within a second");
    }

    private TraceLevelEntry find(ProcessView p, List<TraceLevelEntry> levels) {
        Optional<TraceLevelEntry> found = levels.stream().filter(e -> e.component().equals(component)).findFirst();
        if (found.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "process " + p.pid() + " has no trace component '" + component + "'; "
                    + (levels.isEmpty() ? "it has registered none yet"
                    : "known: " + String.join(", ", levels.stream().map(TraceLevelEntry::component).toList())));
        }
        return found.get();
    }

    private void printRecords(PrintWriter out, Path d) {
        ProcessView p = RasFiles.open(d, pid);
        List<TraceRecord> all = RasFiles.read(p.file(), r -> r.traceRecords());
        List<TraceRecord> shown = last != null && last < all.size() ? all.subList(all.size() - last, all.size()) : all;
        out.println(p.title() + ": " + (shown.size() == all.size() ? all.size() + " trace records"
                : "newest " + shown.size() + " of " + all.size() + " trace records") + ", oldest first");
        if (shown.isEmpty()) {
            return;
        }
        TextTable table = new TextTable("TIME (UTC)", ">THREAD", "COMPONENT", ">LEVEL", "EVENT", ">A", ">B", ">C", ">D", "TEXT");
        for (TraceRecord r : shown) {
            table.row(TimeFormat.isoMicros(r.epochNanos()), r.threadId(), r.component(), r.level(), r.event(),
                    r.a(), r.b(), r.c(), r.d(), r.text());
        }
        table.print(out, "  ");
    }
}
