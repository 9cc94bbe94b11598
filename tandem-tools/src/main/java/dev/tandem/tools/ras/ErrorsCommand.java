package dev.tandem.tools.ras;

import dev.tandem.tools.text.ToolException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/** {@code tandem errors}: the distinct error log of Tandem processes, read from outside, also after a process died. */
@Command(name = "errors", sortOptions = false,
        description = {"Prints the distinct error log of Tandem processes: each cause once, with its count, first and last",
                "time (UTC) and the first observation's detail, and how many observations were dropped because the",
                "log was full. Works while a process runs and after it died."},
        footer = {"", "Exit code 0, 1 when no process or file is found, 2 on bad usage.",
                "Examples:", "  tandem errors", "  tandem errors --pid 4711 --json"})
public final class ErrorsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Mixin
    ProcessSelection selection;

    @Option(names = "--json", description = "one JSON object")
    boolean json;

    @Override
    public Integer call() {
        boolean strict = selection.pid().isPresent();
        PrintWriter out = spec.commandLine().getOut();
        try {
            long now = System.currentTimeMillis();
            Selection s = selection.select(now);
            s.failIfEmpty("give --dir if they use another directory");
            ErrorReport report = ErrorReport.read(s, now, strict);
            if (json) {
                out.println(ErrorsJson.of(report));
            } else {
                ErrorsText.print(out, report);
            }
            out.flush();
            return 0;
        } catch (ToolException e) {
            return e.report(spec);
        }
    }
}
