package dev.tandem.ras;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import static dev.tandem.ras.RasFileDescriptor.ERROR_COUNT_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_FIRST_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_KEY_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_KEY_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_LAST_MS_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_LOG_DROPPED_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_LOG_TAIL_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_RECORD_ALIGNMENT;
import static dev.tandem.ras.RasFileDescriptor.ERROR_RECORD_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.ERROR_TEXT_LENGTH_OFFSET;
import static dev.tandem.ras.RasFileDescriptor.MAX_ERROR_KEY_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.MAX_ERROR_TEXT_LENGTH;
import static dev.tandem.ras.RasFileDescriptor.align;

/**
 * Distinct error log in the RAS file (after Agrona's {@code DistinctErrorLog}): each distinct cause is
 * stored once, with an observation count, first and last time and the first observation's text.
 * Bounded: when a new cause no longer fits, the observation is counted as dropped instead. Safe for
 * any number of threads: a new record's space is reserved by a CAS on the log's tail, and a cause is
 * appended at most once (an in-process index from cause to record guards it).
 */
public final class ErrorLog {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final Pattern NUMBER = Pattern.compile("0[xX][0-9a-fA-F]+|[0-9]+");

    private final MemorySegment file;
    private final Section section;
    private final ConcurrentHashMap<String, Long> index = new ConcurrentHashMap<>();

    ErrorLog(MemorySegment file, RasLayout layout) {
        this.file = file;
        this.section = layout.section(RasSection.ERROR_LOG);
    }

    /** Records {@code error}, distinct by {@link #causeOf(Throwable)}; its stack trace is the text. */
    public boolean record(Throwable error) {
        if (error == null) {
            throw new IllegalArgumentException("error is null; record a Throwable or use record(cause, detail)");
        }
        return record(causeOf(error), stackTrace(error));
    }

    /** Records {@code error} under a caller-given cause; its stack trace is the text. */
    public boolean record(String cause, Throwable error) {
        return record(cause, stackTrace(error));
    }

    /**
     * Records one observation of {@code cause}.
     *
     * @param cause  what makes the error distinct, e.g. {@code "terminate sent: DDP tagged invalid STag"}
     * @param detail text kept from the first observation (cut to {@value RasFileDescriptor#MAX_ERROR_TEXT_LENGTH} bytes)
     * @return true when stored or counted; false when the log was full and the observation was dropped
     * @throws CorruptStructureException when a new cause finds the error log's markers overwritten
     */
    public boolean record(String cause, String detail) {
        if (cause == null || cause.isEmpty()) {
            throw new IllegalArgumentException("error cause is " + (cause == null ? "null" : "empty")
                    + "; give what makes the error distinct, e.g. an exception class and message");
        }
        long now = System.currentTimeMillis();
        Long existing = index.get(cause);
        if (existing != null) {
            observe(existing, now);
            return true;
        }
        boolean[] appended = new boolean[1];
        Long record = index.computeIfAbsent(cause, key -> {
            long offset = append(key, detail == null ? "" : detail, now);
            if (offset < 0) {
                return null;
            }
            appended[0] = true;
            return offset;
        });
        if (record == null) {
            LONG.getAndAdd(file, section.offset() + ERROR_LOG_DROPPED_OFFSET, 1L);
            return false;
        }
        if (!appended[0]) {
            observe(record, now);
        }
        return true;
    }

    /** Observations dropped because the log was full. */
    public long dropped() {
        return dropped(file, section);
    }

    /** Distinct causes stored. */
    public int distinctCount() {
        return index.size();
    }

    /** Snapshot of the stored errors, oldest cause first. */
    public List<ErrorEntry> snapshot() {
        return read(file, section);
    }

    /**
     * The distinct cause of {@code error}: its class, its message with numbers replaced by {@code #}
     * (so "QP 17 in ERROR" and "QP 18 in ERROR" are one cause; hex numbers become {@code 0x#}) and the method and line that threw it.
     */
    public static String causeOf(Throwable error) {
        StringBuilder cause = new StringBuilder(error.getClass().getName());
        String message = error.getMessage();
        if (message != null) {
            cause.append(": ").append(NUMBER.matcher(message).replaceAll(n -> n.group().length() > 1
                    && (n.group().charAt(1) | 0x20) == 'x' ? "0x#" : "#"));
        }
        StackTraceElement[] stack = error.getStackTrace();
        if (stack.length > 0) {
            cause.append(" @ ").append(stack[0].getClassName()).append('.').append(stack[0].getMethodName())
                    .append(':').append(stack[0].getLineNumber());
        }
        return cause.toString();
    }

    private static String stackTrace(Throwable error) {
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            error.printStackTrace(out);
        }
        return text.toString();
    }

    /** Appends a new record; its absolute offset, or -1 when it does not fit. */
    private long append(String cause, String detail, long now) {
        section.check(file);
        byte[] key = Text.utf8(cause, MAX_ERROR_KEY_LENGTH);
        byte[] text = Text.utf8(detail, MAX_ERROR_TEXT_LENGTH);
        int length = (int) align(ERROR_KEY_OFFSET + key.length + text.length, ERROR_RECORD_ALIGNMENT);
        long tailField = section.offset() + ERROR_LOG_TAIL_OFFSET;
        long tail;
        do {
            tail = (long) LONG.getVolatile(file, tailField);
            if (tail + length > section.bodyLength()) {
                return -1;
            }
        } while (!LONG.compareAndSet(file, tailField, tail, tail + length));
        long r = section.bodyOffset() + tail;
        file.set(ValueLayout.JAVA_INT, r + ERROR_KEY_LENGTH_OFFSET, key.length);
        file.set(ValueLayout.JAVA_LONG, r + ERROR_COUNT_OFFSET, 1L);
        file.set(ValueLayout.JAVA_LONG, r + ERROR_FIRST_MS_OFFSET, now);
        file.set(ValueLayout.JAVA_LONG, r + ERROR_LAST_MS_OFFSET, now);
        file.set(ValueLayout.JAVA_INT, r + ERROR_TEXT_LENGTH_OFFSET, text.length);
        Text.put(file, r + ERROR_KEY_OFFSET, key);
        Text.put(file, r + ERROR_KEY_OFFSET + key.length, text);
        INT.setRelease(file, r + ERROR_RECORD_LENGTH_OFFSET, length);
        return r;
    }

    private void observe(long record, long now) {
        LONG.getAndAdd(file, record + ERROR_COUNT_OFFSET, 1L);
        long last;
        do {
            last = (long) LONG.getVolatile(file, record + ERROR_LAST_MS_OFFSET);
        } while (now > last && !LONG.compareAndSet(file, record + ERROR_LAST_MS_OFFSET, last, now));
    }

    static long dropped(MemorySegment file, Section section) {
        return (long) LONG.getVolatile(file, section.offset() + ERROR_LOG_DROPPED_OFFSET);
    }

    /** Decodes the complete records of a mapped error log, oldest first. */
    static List<ErrorEntry> read(MemorySegment file, Section section) {
        section.check(file);
        long tail = Math.min((long) LONG.getVolatile(file, section.offset() + ERROR_LOG_TAIL_OFFSET), section.bodyLength());
        List<ErrorEntry> out = new ArrayList<>();
        long offset = 0;
        while (offset + ERROR_KEY_OFFSET <= tail) {
            long r = section.bodyOffset() + offset;
            int length = (int) INT.getAcquire(file, r + ERROR_RECORD_LENGTH_OFFSET);
            if (length == 0) {
                break; // reserved but not complete yet: later records wait for it
            }
            int keyLength = file.get(ValueLayout.JAVA_INT, r + ERROR_KEY_LENGTH_OFFSET);
            int textLength = file.get(ValueLayout.JAVA_INT, r + ERROR_TEXT_LENGTH_OFFSET);
            if (length < ERROR_KEY_OFFSET || length % ERROR_RECORD_ALIGNMENT != 0 || offset + length > tail
                    || keyLength < 0 || textLength < 0 || (long) ERROR_KEY_OFFSET + keyLength + textLength > length) {
                throw new CorruptStructureException(section.structure(), r, "an error record of at most " + (tail - offset)
                        + " bytes holding its key and text", "length " + length + ", key " + keyLength + ", text " + textLength);
            }
            out.add(new ErrorEntry(Text.utf8(file, r + ERROR_KEY_OFFSET, keyLength),
                    (long) LONG.getVolatile(file, r + ERROR_COUNT_OFFSET),
                    file.get(ValueLayout.JAVA_LONG, r + ERROR_FIRST_MS_OFFSET),
                    (long) LONG.getVolatile(file, r + ERROR_LAST_MS_OFFSET),
                    Text.utf8(file, r + ERROR_KEY_OFFSET + keyLength, textLength)));
            offset += length;
        }
        return out;
    }
}
