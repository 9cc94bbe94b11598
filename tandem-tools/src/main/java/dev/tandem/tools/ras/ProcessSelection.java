package dev.tandem.tools.ras;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.OptionalLong;

/** The {@code --dir}, {@code --pid} and {@code --all} options of {@code stat} and {@code errors}. */
public final class ProcessSelection {
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--dir", paramLabel = "DIR", description = "RAS directory (default ${sys:java.io.tmpdir}/tandem)")
    Path dir;

    @Option(names = "--pid", paramLabel = "PID", description = "only this process; its file is read also after it died")
    Long pid;

    @Option(names = "--all", description = "also list processes dead for more than a day")
    boolean all;

    /** The RAS directory. */
    Path dir() {
        return dir != null ? dir : RasFiles.defaultDir();
    }

    /** The pid asked for, checked. */
    OptionalLong pid() {
        if (pid == null) {
            return OptionalLong.empty();
        }
        if (pid < 1) {
            throw new ParameterException(mixee.commandLine(), "--pid " + pid + " is not a process id: give a positive number");
        }
        return OptionalLong.of(pid);
    }

    /** The selected processes; see {@link RasFiles#select}. */
    Selection select(long nowMs) {
        return RasFiles.select(dir(), pid(), all, nowMs);
    }
}
