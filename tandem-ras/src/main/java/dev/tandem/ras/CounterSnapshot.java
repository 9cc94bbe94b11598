package dev.tandem.ras;

/**
 * One allocated counter as read from a RAS file.
 *
 * @param id       counter id (slot index)
 * @param typeId   caller-defined type
 * @param ownerKey caller-defined owner, e.g. a resource id
 * @param label    human-readable name
 * @param value    value at the time of reading
 */
public record CounterSnapshot(int id, int typeId, long ownerKey, String label, long value) {
}
