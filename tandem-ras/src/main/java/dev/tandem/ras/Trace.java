package dev.tandem.ras;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.tandem.ras.RasFileDescriptor.MAX_COMPONENT_NAME_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.TRACE_SLOT_LEVEL_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_SLOT_NAME_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.TRACE_SLOT_NAME_OFFSET;

/**
 * The trace components of a process: registers names in the RAS file's level table (one slot each,
 * never freed), hands out {@link TraceComponent}s that record into the trace ring, and refreshes their
 * cached levels from the table, where another process may have changed them.
 */
public final class Trace {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment file;
    private final Section levels;
    private final Section ring;
    private final TraceRing writer;
    private final int defaultLevel;
    private final Map<String, TraceComponent> components = new HashMap<>();
    private volatile TraceComponent[] registered = new TraceComponent[0];

    Trace(MemorySegment file, RasLayout layout, int defaultLevel) {
        this.file = file;
        this.levels = layout.section(RasSection.TRACE_LEVELS);
        this.ring = layout.section(RasSection.TRACE_RING);
        this.writer = new TraceRing(file, ring);
        this.defaultLevel = defaultLevel;
    }

    /**
     * The component called {@code name}, registered at the configured default level on first use.
     *
     * @param name 1..48 characters of {@code a-z 0-9 . _ -}, e.g. {@code iwarp.rx}
     * @throws IllegalStateException     when the level table is full
     * @throws CorruptStructureException when the level table's markers were overwritten
     */
    public synchronized TraceComponent component(String name) {
        checkName(name);
        TraceComponent existing = components.get(name);
        if (existing != null) {
            return existing;
        }
        levels.check(file);
        int slot = components.size();
        if (slot >= levels.entryCapacity()) {
            throw new IllegalStateException("trace level table is full (" + levels.entryCapacity() + " components) registering '"
                    + name + "'; raise RasConfig.traceComponentCapacity");
        }
        long s = levels.entryOffset(slot);
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        INT.setVolatile(file, s + TRACE_SLOT_LEVEL_OFFSET, defaultLevel);
        Text.put(file, s + TRACE_SLOT_NAME_OFFSET, bytes);
        INT.setRelease(file, s + TRACE_SLOT_NAME_LENGTH_OFFSET, bytes.length);
        TraceComponent component = new TraceComponent(name, slot, file, s + TRACE_SLOT_LEVEL_OFFSET, writer, defaultLevel);
        components.put(name, component);
        TraceComponent[] grown = Arrays.copyOf(registered, slot + 1);
        grown[slot] = component;
        registered = grown;
        return component;
    }

    /**
     * Picks up levels changed in the file (by another process) into the components' cached levels,
     * after checking the level table's markers. Allocates nothing; the RAS duty thread calls it every
     * {@link RasConfig#dutyIntervalMs()}, and an owner without a duty thread calls it itself.
     *
     * @throws CorruptStructureException when the level table's markers or a level were overwritten
     */
    public void refresh() {
        levels.check(file);
        for (TraceComponent component : registered) {
            component.refresh(levels);
        }
    }

    /** Sets the level 0..9 of the registered component {@code name}. */
    public void setLevel(String name, int level) {
        lookup(name).setLevel(level);
    }

    /** The level the hot path of the registered component {@code name} uses. */
    public int level(String name) {
        return lookup(name).level();
    }

    /** The level table. */
    public List<TraceLevelEntry> levels() {
        return readLevels(file, levels);
    }

    /** The trace ring, oldest to newest. */
    public List<TraceRecord> records() {
        return TraceRing.read(file, ring, readLevels(file, levels));
    }

    private synchronized TraceComponent lookup(String name) {
        TraceComponent c = components.get(name);
        if (c == null) {
            throw new IllegalArgumentException("no trace component '" + name + "'; registered: " + components.keySet());
        }
        return c;
    }

    static void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_COMPONENT_NAME_LENGTH
                || !name.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) {
            throw new IllegalArgumentException("trace component name '" + name + "' must be 1.." + MAX_COMPONENT_NAME_LENGTH
                    + " characters of a-z 0-9 . _ - (e.g. iwarp.rx)");
        }
    }

    /** Decodes the registered slots of a mapped level table. */
    static List<TraceLevelEntry> readLevels(MemorySegment file, Section levels) {
        levels.check(file);
        List<TraceLevelEntry> out = new ArrayList<>();
        for (int slot = 0; slot < levels.entryCapacity(); slot++) {
            long s = levels.entryOffset(slot);
            int length = (int) INT.getAcquire(file, s + TRACE_SLOT_NAME_LENGTH_OFFSET);
            if (length <= 0) {
                continue;
            }
            out.add(new TraceLevelEntry(slot, Text.ascii(file, s + TRACE_SLOT_NAME_OFFSET, Math.min(length, MAX_COMPONENT_NAME_LENGTH)),
                    (int) INT.getVolatile(file, s + TRACE_SLOT_LEVEL_OFFSET)));
        }
        return out;
    }
}
