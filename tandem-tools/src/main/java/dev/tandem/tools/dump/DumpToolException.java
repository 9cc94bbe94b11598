package dev.tandem.tools.dump;

/**
 * {@code tandem dump} could not do its job for a reason outside the command line: no RAS file or dump
 * file, a corrupt one, a process that did not answer. The command prints the message on one line and
 * exits with 1 (bad usage is a picocli {@code ParameterException}, exit 2).
 */
final class DumpToolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DumpToolException(String message) {
        super(message);
    }

    DumpToolException(String message, Throwable cause) {
        super(message, cause);
    }
}
