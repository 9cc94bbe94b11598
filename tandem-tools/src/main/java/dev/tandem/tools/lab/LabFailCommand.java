package dev.tandem.tools.lab;

import picocli.CommandLine.Command;

import java.util.stream.Collectors;

/** {@code tandem lab fail}: pulls cables and powers switches off. */
@Command(name = "fail",
        description = {"Pulls cables and powers switches off; 'tandem lab heal' undoes it.",
                "hI.aK: the adapter's link goes down inside its host; what peers send to it vanishes (no FIN, no RST).",
                "switchK: the switch stops forwarding and routing; the hosts keep their link.",
                "hI.aK-hJ.aK (switchless): both ends of that cable go down."},
        footer = {"", "Exit code 0 when done, 1 when there is no lab or 'ip' failed, 2 on bad usage or a target the lab does not have.",
                "Examples:", "  sudo tandem lab fail h1.a1", "  sudo tandem lab fail switch2", "  sudo tandem lab fail h1.a1 h2.a2"})
public final class LabFailCommand extends LabTargetCommand {
    public LabFailCommand() {
    }

    @Override
    void act(Lab lab, Target target) {
        lab.fail(target);
    }

    @Override
    String done(LabPlan plan, Target target) {
        String what = switch (target) {
            case Target.Adapter a -> "cable pulled";
            case Target.Switch s -> "switch off";
            case Target.Cable c -> "cable cut";
        };
        return "failed " + target.name() + ": " + what + " (" + plan.ends(target).stream().map(e -> e + " down")
                .collect(Collectors.joining(", ")) + ")";
    }
}
