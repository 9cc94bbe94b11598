package dev.tandem.tools;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the {@code tandem} command line in this JVM for the tests, capturing what it prints and its exit code. */
public final class CliRun {
    private CliRun() {
    }

    /**
     * What one run did.
     *
     * @param exit its exit code
     * @param out  what it printed on stdout
     * @param err  what it printed on stderr
     */
    public record Result(int exit, String out, String err) {
    }

    /** Runs {@code tandem args} as {@link TandemCli#main} would, but with stdout and stderr captured. */
    public static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = TandemCli.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    /**
     * Runs {@code tandem args}, which should be refused as bad usage: asserts exit code 2 and nothing on stdout.
     *
     * @return what it printed on stderr, for the test to check the message
     */
    public static String usageError(String... args) {
        Result r = run(args);
        assertThat(r.exit()).as("exit code of tandem %s, stderr: %s", String.join(" ", args), r.err()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        return r.err();
    }
}
