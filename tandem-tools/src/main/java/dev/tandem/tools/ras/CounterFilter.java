package dev.tandem.tools.ras;

import dev.tandem.ras.CounterSnapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which counters {@code tandem stat} shows: a counter passes when its label contains any of the
 * {@code --filter} texts (case-sensitive) and its type is any of the {@code --type}s; an empty list
 * lets everything through.
 *
 * @param texts substrings of the label
 * @param types type ids ({@link dev.tandem.ras.CounterType} names them)
 */
record CounterFilter(List<String> texts, List<Integer> types) implements Predicate<CounterSnapshot> {
    static final CounterFilter ALL = new CounterFilter(List.of(), List.of());

    CounterFilter {
        texts = List.copyOf(texts);
        types = List.copyOf(types);
    }

    @Override
    public boolean test(CounterSnapshot c) {
        return (texts.isEmpty() || texts.stream().anyMatch(c.label()::contains)) && (types.isEmpty() || types.contains(c.typeId()));
    }

    boolean isAll() {
        return texts.isEmpty() && types.isEmpty();
    }

    /** E.g. {@code label contains 'bytes' or 'msgs', type 2}. */
    String describe() {
        List<String> parts = new ArrayList<>();
        if (!texts.isEmpty()) {
            parts.add("label contains " + String.join(" or ", texts.stream().map(t -> "'" + t + "'").toList()));
        }
        if (!types.isEmpty()) {
            parts.add("type " + String.join(" or ", types.stream().map(CounterTypeConverter::describe).toList()));
        }
        return String.join(", ", parts);
    }
}
