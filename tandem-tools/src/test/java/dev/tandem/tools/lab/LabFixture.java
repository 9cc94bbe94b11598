package dev.tandem.tools.lab;

import org.junit.jupiter.api.Assumptions;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the tests that build real labs share: they run only where root and {@code ip netns} are (else they
 * are skipped with the reason), and each lab gets a prefix of its own, so parallel runs and a user's lab
 * {@value LabPlan#DEFAULT_PREFIX} are never touched.
 */
final class LabFixture {
    private static final AtomicInteger LABS = new AtomicInteger();
    private static String netnsProblem;
    private static boolean probed;

    private LabFixture() {
    }

    /** The {@code ip} to build labs with; skips the test, saying why, when this machine or process cannot. */
    static Ip ipOrSkip() {
        LabPreflight preflight = LabPreflight.ofThisProcess();
        Assumptions.assumeTrue(preflight.refusal().isEmpty(), () -> "lab test skipped: " + preflight.refusal().orElseThrow());
        Ip ip = preflight.ipRunner();
        String problem = netnsProblem(ip);
        Assumptions.assumeTrue(problem == null, () -> "lab test skipped: " + problem);
        return ip;
    }

    /** A prefix no other run and no user lab has: {@code tlab<pid>x<n>}. */
    static String uniquePrefix() {
        return "tlab" + ProcessHandle.current().pid() + "x" + LABS.incrementAndGet();
    }

    /** Why {@code ip netns} cannot be used here (e.g. root in a container without the right), or null; tried once per JVM. */
    private static synchronized String netnsProblem(Ip ip) {
        if (!probed) {
            probed = true;
            String probe = uniquePrefix() + "-h1";
            try {
                ip.run("netns", "add", probe);
                ip.run("netns", "delete", probe);
            } catch (LabException e) {
                netnsProblem = "network namespaces are not usable here: " + e.getMessage();
            }
        }
        return netnsProblem;
    }
}
