package dev.tandem.failover.chaos;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a scenario opened, closed in the order the verbs require (QPs before the SRQs and CQs they use,
 * regions before their PDs, everything before its device), newest first within a group. Every close
 * runs, and every failure (a leak report of a strict device among them) is a finding.
 */
final class Resources {
    /** Close order. */
    enum Group { QP, SRQ, CQ, MW, MR, PD, WATCH, DEVICE, CHANNEL, ARENA }

    private final Map<Group, List<AutoCloseable>> open = new EnumMap<>(Group.class);

    synchronized <T extends AutoCloseable> T keep(Group group, T resource) {
        open.computeIfAbsent(group, g -> new ArrayList<>()).add(resource);
        return resource;
    }

    /** Closes everything kept; each failure is a {@link Check#CLOSE} finding. */
    void closeAll(Findings findings) {
        Map<Group, List<AutoCloseable>> all;
        synchronized (this) {
            all = new EnumMap<>(open);
            open.clear();
        }
        for (Group g : Group.values()) {
            List<AutoCloseable> l = all.getOrDefault(g, List.of());
            for (int i = l.size() - 1; i >= 0; i--) {
                try {
                    l.get(i).close();
                } catch (Exception e) {
                    findings.add(Check.CLOSE, "closing " + g + " " + l.get(i) + " failed: " + e);
                }
            }
        }
    }
}
