package dev.tandem.tools.lab;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * What every {@code tandem lab} subcommand does the same way: check its arguments (no root needed: bad
 * usage exits 2), then refuse in one line without root or {@code ip} (exit 1), then do its work, a
 * {@link LabException} being one line on stderr (exit 1).
 */
abstract class LabSubcommand implements Callable<Integer> {
    /** Exit code when the lab cannot be used or its work failed. */
    static final int EXIT_FAILED = 1;

    @ParentCommand
    LabCommand lab;

    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--prefix", paramLabel = "P", defaultValue = LabPlan.DEFAULT_PREFIX,
            description = "the lab's name: its namespaces are P-h1, P-h2, ... and P-sw (default ${DEFAULT-VALUE})")
    String prefix;

    LabSubcommand() {
    }

    @Override
    public final Integer call() {
        usage(() -> LabPlan.checkPrefix(prefix));
        validate();
        PrintWriter err = spec.commandLine().getErr();
        LabPreflight preflight = lab.preflight();
        Optional<String> refusal = preflight.refusal();
        if (refusal.isPresent()) {
            spec.commandLine().getOut().flush();
            err.println(refusal.get());
            err.flush();
            return EXIT_FAILED;
        }
        PrintWriter out = spec.commandLine().getOut();
        try {
            return work(out, preflight.ipRunner());
        } catch (LabException e) {
            out.flush();
            err.println("tandem " + spec.qualifiedName().replaceFirst("^tandem ", "") + ": error: " + e.getMessage());
            for (Throwable s : e.getSuppressed()) {
                err.println("  also: " + s.getMessage());
            }
            err.flush();
            return EXIT_FAILED;
        } finally {
            out.flush();
        }
    }

    /** Checks the arguments beyond {@code --prefix}; bad ones throw a {@link ParameterException} (see {@link #usage}). */
    void validate() {
    }

    /** Does the command's work once root and {@code ip} are there; returns the exit code. */
    abstract int work(PrintWriter out, Ip ip);

    /** Runs {@code check}, turning its {@link IllegalArgumentException} into bad usage (exit 2) with the same message. */
    final <T> T usage(Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
