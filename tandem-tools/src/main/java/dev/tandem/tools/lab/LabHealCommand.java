package dev.tandem.tools.lab;

import picocli.CommandLine.Command;

import java.util.stream.Collectors;

/** {@code tandem lab heal}: plugs cables back in and powers switches on. */
@Command(name = "heal",
        description = {"Undoes 'tandem lab fail': the links come up and a healed adapter gets its routes back.",
                "Healing what is healthy changes nothing."},
        footer = {"", "Exit code 0 when done, 1 when there is no lab or 'ip' failed, 2 on bad usage or a target the lab does not have.",
                "Examples:", "  sudo tandem lab heal h1.a1", "  sudo tandem lab heal switch2"})
public final class LabHealCommand extends LabTargetCommand {
    public LabHealCommand() {
    }

    @Override
    void act(Lab lab, Target target) {
        lab.heal(target);
    }

    @Override
    String done(LabPlan plan, Target target) {
        return "healed " + target.name() + " (" + plan.ends(target).stream().map(e -> e + " up").collect(Collectors.joining(", ")) + ")";
    }
}
