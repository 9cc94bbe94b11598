package dev.tandem.tools.system;

import dev.tandem.tools.CliRun;
import dev.tandem.tools.perf.MiniJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 3's "done when": a real Tandem process runs traffic, and {@code tandem stat}, {@code errors},
 * {@code trace} and {@code dump} read and steer it from outside, while it runs and after it was killed.
 */
class OutsideViewTest {
    private static final Duration BOUND = Duration.ofSeconds(10);

    /** Runs the command until its output satisfies {@code done}, bounded; returns the last run. */
    private static CliRun.Result until(Predicate<CliRun.Result> done, String what, String... args) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        CliRun.Result r = CliRun.run(args);
        while (!done.test(r)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("tandem " + String.join(" ", args) + ": " + what + " not seen within " + BOUND
                        + "; last output:\n" + r.out() + r.err());
            }
            Thread.onSpinWait();
            r = CliRun.run(args);
        }
        return r;
    }

    /** The value of the counter labelled {@code label} in {@code tandem stat --json} output, or -1. */
    @SuppressWarnings("unchecked")
    private static long counter(String statJson, String label) {
        if (statJson.isBlank()) {
            return -1;
        }
        Map<String, Object> frame = MiniJson.object(statJson.strip());
        for (Object p : (List<Object>) frame.get("processes")) {
            for (Object c : (List<Object>) ((Map<String, Object>) p).get("counters")) {
                Map<String, Object> counter = (Map<String, Object>) c;
                if (label.equals(counter.get("label"))) {
                    return ((Double) counter.get("value")).longValue();
                }
            }
        }
        return -1;
    }

    @Test
    void statErrorsTraceAndDumpWorkFromOutsideWhileItRunsAndAfterItDied(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(List.of(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                TrafficProcess.class.getName(), dir.toString(), "127.0.1.41", "127.0.1.42"))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String ready = lines.readLine();
            assertThat(ready).as("the traffic process started").startsWith("READY ");
            String pid = ready.substring("READY ".length());
            String d = dir.toString();

            // stat: the process is listed, and its Send counter moves while we watch
            CliRun.Result list = CliRun.run("stat", "--dir", d);
            assertThat(list.exit()).as(list.err()).isZero();
            assertThat(list.out()).contains("pid " + pid);
            CliRun.Result first = until(r -> counter(r.out(), "iwarp0@127.0.1.41 sent SEND") > 0, "Sends counted",
                    "stat", "--dir", d, "--pid", pid, "--filter", "sent SEND", "--json");
            long sends = counter(first.out(), "iwarp0@127.0.1.41 sent SEND");
            until(r -> counter(r.out(), "iwarp0@127.0.1.41 sent SEND") > sends, "the Send counter moving",
                    "stat", "--dir", d, "--pid", pid, "--filter", "sent SEND", "--json");
            CliRun.Result prometheus = CliRun.run("stat", "--dir", d, "--pid", pid, "--prometheus");
            assertThat(prometheus.exit()).as(prometheus.err()).isZero();
            assertThat(prometheus.out()).contains("tandem_counter{").contains("pid=\"" + pid + "\"");

            // --type by name: the engine stamps each counter with its owner's kind
            CliRun.Result cqs = CliRun.run("stat", "--dir", d, "--pid", pid, "--type", "cq");
            assertThat(cqs.exit()).as(cqs.err()).isZero();
            assertThat(cqs.out()).contains("iwarp0@127.0.1.41 cq 1 completions").doesNotContain(" sent SEND")
                    .containsPattern("(?m)^ +\\d* +cq +\\d+  iwarp1@127\\.0\\.1\\.42 cq 1 completions$");

            // errors: the failed Read's Terminate, on both sides
            CliRun.Result errors = CliRun.run("errors", "--dir", d, "--pid", pid);
            assertThat(errors.exit()).as(errors.err()).isZero();
            assertThat(errors.out()).contains("iwarp0@127.0.1.41: peer sent Terminate RDMAP_INVALID_STAG")
                    .contains("iwarp1@127.0.1.42: ");

            // trace: raise iwarp.tx to hot-path entry/exit in the running process; its records appear
            CliRun.Result set = CliRun.run("trace", "--dir", d, "--pid", pid, "iwarp.tx", "7");
            assertThat(set.exit()).as(set.err()).isZero();
            long setAt = System.nanoTime();
            until(r -> r.out().lines().anyMatch(l -> l.contains("iwarp.tx") && l.contains("fpdu-tx")), "iwarp.tx hot-path records",
                    "trace", "--dir", d, "--pid", pid, "--records", "--last", "50");
            System.out.println("trace level applied and recorded " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - setAt)
                    + " ms after tandem trace set it");
            assertThat(CliRun.run("trace", "--dir", d, "--pid", pid, "iwarp.tx", "0").exit()).isZero();

            // stat --resources: every resource with its owner and the call site that created it
            CliRun.Result resources = CliRun.run("stat", "--dir", d, "--pid", pid, "--resources");
            assertThat(resources.exit()).as(resources.err()).isZero();
            assertThat(resources.out()).contains("iwarp0@127.0.1.41 qp ").contains("iwarp1@127.0.1.42 pd ")
                    .contains("TrafficProcess.connect(TrafficProcess.java:").contains("TrafficProcess.main(TrafficProcess.java:")
                    .contains("RTS /127.0.1.41:");

            // dump: the running process writes its state; decoded, it is grouped by adapter and session
            CliRun.Result dump = CliRun.run("dump", "--dir", d, "--pid", pid);
            assertThat(dump.exit()).as(dump.err()).isZero();
            Path dumpFile = Path.of(dump.out().strip());
            assertThat(dumpFile).exists().hasParentRaw(dir);
            CliRun.Result decoded = CliRun.run("dump", "--decode", dumpFile.toString());
            assertThat(decoded.exit()).as(decoded.err()).isZero();
            assertThat(decoded.out()).contains("adapter iwarp0@127.0.1.41").contains("adapter iwarp1@127.0.1.42")
                    .contains("qp iwarp0@127.0.1.41 qp ").contains("session /127.0.1.41:")
                    .containsPattern("state +RTS").containsPattern("next send msn +\\d+")
                    .contains("peer sent Terminate RDMAP_INVALID_STAG")
                    .containsPattern("(?m)^  iwarp0@127\\.0\\.1\\.41$").containsPattern("(?m)^ +[1-9]\\d*  sent SEND$");

            // kill -9: everything still reads from the file it left behind
            child.destroyForcibly();
            assertThat(child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the child died").isTrue();
            CliRun.Result dead = CliRun.run("stat", "--dir", d, "--pid", pid);
            assertThat(dead.exit()).as(dead.err()).isZero();
            assertThat(dead.out()).contains("pid " + pid).contains("dead");
            CliRun.Result deadJson = CliRun.run("stat", "--dir", d, "--pid", pid, "--json");
            assertThat(counter(deadJson.out(), "iwarp0@127.0.1.41 sent SEND")).isGreaterThan(sends);
            CliRun.Result deadErrors = CliRun.run("errors", "--dir", d, "--pid", pid);
            assertThat(deadErrors.exit()).as(deadErrors.err()).isZero();
            assertThat(deadErrors.out()).contains("peer sent Terminate RDMAP_INVALID_STAG");
            CliRun.Result deadResources = CliRun.run("stat", "--dir", d, "--pid", pid, "--resources");
            assertThat(deadResources.out()).as("the owner table of a killed process").contains("iwarp0@127.0.1.41 qp ");
            CliRun.Result deadDump = CliRun.run("dump", "--dir", d, "--pid", pid);
            assertThat(deadDump.exit()).as(deadDump.err()).isZero();
            assertThat(deadDump.err()).contains("process " + pid + " is not running: dump holds its RAS file only");
            CliRun.Result deadDecoded = CliRun.run("dump", "--decode", deadDump.out().strip());
            assertThat(deadDecoded.out()).containsPattern("(?m)^ +[1-9]\\d*  sent SEND$").contains("peer sent Terminate RDMAP_INVALID_STAG");
        } finally {
            child.destroyForcibly();
            child.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
