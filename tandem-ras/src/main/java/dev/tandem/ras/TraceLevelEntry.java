package dev.tandem.ras;

/**
 * One row of the trace level table.
 *
 * @param slot      index in the table (trace records name it)
 * @param component component name, e.g. {@code iwarp.rx}
 * @param level     current level 0..9
 */
public record TraceLevelEntry(int slot, String component, int level) {
}
