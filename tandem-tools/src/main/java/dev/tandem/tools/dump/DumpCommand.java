package dev.tandem.tools.dump;

import dev.tandem.ras.CorruptStructureException;
import dev.tandem.ras.DumpReader;
import dev.tandem.ras.RasConfig;
import dev.tandem.tools.text.ToolException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code tandem dump}: has a running Tandem process write a dump (its state tree and a copy of its RAS
 * file), dumps a dead one from its RAS file alone, or prints a dump file for people.
 */
@Command(name = "dump", sortOptions = false,
        description = {"Writes or prints a dump of a Tandem process: its adapters' state (sessions, QPs, ...), its resources,",
                "counters, error log and trace ring at one moment.",
                "  tandem dump --pid P        asks the running process P for a dump and prints the file's path; when P is",
                "                             not running, writes one from its RAS file alone (resources, counters, errors, trace)",
                "  tandem dump --decode FILE  prints a dump file"},
        footer = {"", "Dumps are named <pid>-<yyyyMMdd-HHmmss-SSS>-<reason>.dump (UTC) and written into the RAS directory.",
                "Exit code 0, 1 when the process, file or dump is not found, is corrupt or did not answer, 2 on bad usage.",
                "Examples:", "  tandem dump --pid 4711", "  tandem dump --decode /tmp/tandem/4711-20250601-101500-123-requested.dump"})
public final class DumpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--pid", paramLabel = "PID", description = "dump this process")
    Long pid;

    @Option(names = "--dir", paramLabel = "DIR", description = "with --pid: RAS directory (default ${sys:java.io.tmpdir}/tandem)")
    Path dir;

    @Option(names = "--timeout", paramLabel = "DURATION",
            description = "with --pid: how long to wait for the running process to write it (default 5s; e.g. 500ms, 30s, 1m)")
    String timeout;

    @Option(names = "--decode", paramLabel = "FILE", description = "print this dump file")
    Path decode;

    @Override
    public Integer call() {
        Duration wait = validate();
        PrintWriter out = spec.commandLine().getOut();
        try {
            if (decode != null) {
                decode(out);
            } else {
                DumpRequest.Result result = DumpRequest.of(dir != null ? dir : RasConfig.defaultDir(), pid, wait);
                if (result.note() != null) {
                    PrintWriter err = spec.commandLine().getErr();
                    err.println("tandem dump: " + result.note());
                    err.flush();
                }
                out.println(result.file());
            }
            out.flush();
            return 0;
        } catch (ToolException e) {
            return e.report(spec);
        }
    }

    private Duration validate() {
        if ((pid == null) == (decode == null)) {
            throw new ParameterException(spec.commandLine(), pid == null
                    ? "give --pid PID to dump a process, or --decode FILE to print a dump"
                    : "give either --pid or --decode, not both");
        }
        if (decode != null) {
            if (dir != null || timeout != null) {
                throw new ParameterException(spec.commandLine(), (dir != null ? "--dir" : "--timeout")
                        + " only applies with --pid; --decode reads the FILE given");
            }
            return Duration.ZERO;
        }
        if (pid < 1) {
            throw new ParameterException(spec.commandLine(), "--pid " + pid + " is not a process id: give a positive number");
        }
        try {
            return Timeout.parse(timeout != null ? timeout : "5s");
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    private void decode(PrintWriter out) {
        if (!Files.isRegularFile(decode)) {
            throw new ToolException("no dump file " + decode);
        }
        try (DumpReader dump = DumpReader.open(decode)) {
            DumpText.print(out, dump);
        } catch (CorruptStructureException e) {
            throw new ToolException("dump " + decode + " is corrupt: " + e.getMessage(), e);
        } catch (UncheckedIOException e) {
            throw new ToolException(e.getMessage(), e);
        }
    }
}
