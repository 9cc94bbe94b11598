package dev.tandem.tools.lab;

import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** {@code lab fail} and {@code lab heal}: the same targets, checked the same way, acted on in the order given. */
abstract class LabTargetCommand extends LabSubcommand {
    @Parameters(arity = "1..*", paramLabel = "TARGET", description = "h1.a1 (alias host1.a1), switch1, or (switchless) h1.a1-h2.a1")
    List<String> targetNames = new ArrayList<>();

    private final List<Target> targets = new ArrayList<>();

    LabTargetCommand() {
    }

    @Override
    final void validate() {
        targets.clear();
        for (String name : targetNames) {
            targets.add(usage(() -> Target.parse(name)));
        }
    }

    @Override
    final int work(PrintWriter out, Ip ip) {
        Lab attached = Lab.attach(prefix, ip);
        for (Target t : targets) {
            usage(() -> attached.plan().check(t));
        }
        for (Target t : targets) {
            act(attached, t);
            out.println(done(attached.plan(), t));
        }
        return 0;
    }

    /** Fails or heals {@code target}. */
    abstract void act(Lab lab, Target target);

    /** The line printed once {@code target} was acted on. */
    abstract String done(LabPlan plan, Target target);
}
