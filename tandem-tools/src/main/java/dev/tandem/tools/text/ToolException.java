package dev.tandem.tools.text;

import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;

/**
 * A command could not do its job for a reason outside the command line: no RAS file or dump file for
 * the pid, a file that cannot be read or is corrupt, a process that is not running or did not answer.
 * The command {@linkplain #report reports} it as one line on stderr and exits with {@value #EXIT_CODE}
 * (bad usage is a picocli {@code ParameterException}, exit 2), the same way for every command.
 */
public final class ToolException extends RuntimeException {
    /** Exit code when the process, file or data asked for is not there or not usable (bad usage exits with 2). */
    public static final int EXIT_CODE = 1;

    private static final long serialVersionUID = 1L;

    public ToolException(String message) {
        super(message);
    }

    public ToolException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Flushes what the command printed so far, prints {@code tandem COMMAND: error: MESSAGE} on stderr
     * and returns the exit code.
     *
     * @param spec the failed command
     * @return {@value #EXIT_CODE}
     */
    public int report(CommandSpec spec) {
        spec.commandLine().getOut().flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println("tandem " + spec.name() + ": error: " + getMessage());
        err.flush();
        return EXIT_CODE;
    }
}
