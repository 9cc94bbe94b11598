package dev.tandem.tools.dump;

import dev.tandem.ras.CounterSnapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counters grouped by the prefix of their labels, as the iWARP adapter names them:
 * {@code "<adapter> <name>"} belongs to the adapter, {@code "<adapter> qp <n> <name>"} to QP n of it.
 * A one-word label has no prefix and goes to the group {@code ""}.
 */
final class CounterGroups {
    /**
     * One counter under its group.
     *
     * @param name  the label without the group's prefix
     * @param value its value
     */
    record Row(String name, long value) {
    }

    /**
     * One adapter's counters.
     *
     * @param adapter its name (the labels' first word), or "" for labels without a prefix
     * @param own     the adapter's own counters, in id order
     * @param qps     per QP number, its counters, by QP number
     */
    record Group(String adapter, List<Row> own, Map<Long, List<Row>> qps) {
    }

    private CounterGroups() {
    }

    /** The groups, in the order their first counter appears. */
    static List<Group> of(List<CounterSnapshot> counters) {
        Map<String, Group> groups = new LinkedHashMap<>();
        for (CounterSnapshot c : counters.stream().sorted(Comparator.comparingInt(CounterSnapshot::id)).toList()) {
            String[] words = c.label().split(" ", 4);
            if (words.length < 2) {
                groups.computeIfAbsent("", a -> new Group(a, new ArrayList<>(), new TreeMap<>())).own().add(new Row(c.label(), c.value()));
                continue;
            }
            Group g = groups.computeIfAbsent(words[0], a -> new Group(a, new ArrayList<>(), new TreeMap<>()));
            if (words.length == 4 && words[1].equals("qp") && words[2].matches("[0-9]{1,18}")) {
                g.qps().computeIfAbsent(Long.parseLong(words[2]), n -> new ArrayList<>()).add(new Row(words[3], c.value()));
            } else {
                g.own().add(new Row(c.label().substring(words[0].length() + 1), c.value()));
            }
        }
        return List.copyOf(groups.values());
    }
}
