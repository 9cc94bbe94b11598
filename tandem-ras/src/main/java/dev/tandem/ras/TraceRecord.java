package dev.tandem.ras;

/**
 * One trace record as read from the ring.
 *
 * @param sequence   position in the ring since the file was created (gaps: overwritten or torn records skipped)
 * @param epochNanos time as epoch ns (the record's nanoTime mapped through the ring's clock base)
 * @param threadId   {@code Thread.threadId()} of the recording thread
 * @param component  component name
 * @param level      trace level 1..9 of the event
 * @param event      event name
 * @param a          first number
 * @param b          second number
 * @param c          third number
 * @param d          fourth number
 * @param text       short text (may be empty)
 */
public record TraceRecord(long sequence, long epochNanos, long threadId, String component, int level, String event,
                          long a, long b, long c, long d, String text) {
}
