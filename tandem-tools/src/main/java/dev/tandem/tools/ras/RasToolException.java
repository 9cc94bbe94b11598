package dev.tandem.tools.ras;

/**
 * A RAS command could not do its job for a reason outside the command line: no RAS file for the
 * pid, a file that cannot be read, a process that is not running. The command prints the message
 * and exits with 1 (bad usage is a picocli {@code ParameterException}, exit 2).
 */
final class RasToolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RasToolException(String message) {
        super(message);
    }

    RasToolException(String message, Throwable cause) {
        super(message, cause);
    }
}
