package dev.tandem.tools;

import dev.tandem.tools.perf.PerfException;
import dev.tandem.verbs.RdmaException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Prints a failed command's error as a sentence, with its causes; a stack trace only for errors
 * that are not Tandem's own (those are bugs). Exit code 1.
 */
final class ErrorReporter implements IExecutionExceptionHandler {
    static final int EXIT_FAILED = 1;

    @Override
    public int handleExecutionException(Exception e, CommandLine cl, ParseResult parsed) {
        PrintWriter err = cl.getErr();
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        err.println("tandem " + cl.getCommandName() + ": error: " + message);
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !message.contains(c.getMessage())) {
                err.println("  caused by: " + c);
            }
        }
        for (Throwable s : e.getSuppressed()) {
            err.println("  also: " + s);
        }
        if (!(e instanceof PerfException || e instanceof RdmaException || e instanceof UncheckedIOException)) {
            e.printStackTrace(err);
        }
        err.flush();
        return EXIT_FAILED;
    }
}
