package dev.tandem.tools.demo;

import java.io.PrintWriter;

/**
 * The demo's live progress line and the narration around it. On a terminal the line is rewritten in
 * place (carriage return) and a narrated line clears it, prints, and draws it again below; elsewhere
 * (a pipe, a file, a test) progress is a plain line now and then, so logs stay readable.
 */
final class ProgressLine {
    /** How often a terminal's line is redrawn, at most. */
    static final long TERMINAL_EVERY_NANOS = 100_000_000L;
    /** How often a plain progress line is printed, at most. */
    static final long PLAIN_EVERY_NANOS = 500_000_000L;

    private final PrintWriter out;
    private final boolean terminal;
    /** The progress line on the screen, and how many columns it takes there (with padding over a longer one before). */
    private String shown = "";
    private int columns;
    private long lastNanos;

    /** {@code terminal}: rewrite one line in place; otherwise print plain lines. */
    ProgressLine(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /** Whether it is time to show progress again ({@code nowNanos} is {@link System#nanoTime()}). */
    boolean due(long nowNanos) {
        return lastNanos == 0 || nowNanos - lastNanos >= (terminal ? TERMINAL_EVERY_NANOS : PLAIN_EVERY_NANOS);
    }

    /** Shows {@code progress} if it is time to ({@code nowNanos} is {@link System#nanoTime()}). */
    void update(String progress, long nowNanos) {
        if (!due(nowNanos)) {
            return;
        }
        lastNanos = nowNanos;
        if (terminal) {
            out.print('\r' + pad(progress, columns));
            shown = progress;
            columns = Math.max(columns, progress.length());
        } else {
            out.println(progress);
        }
        out.flush();
    }

    /** Prints a narrated line, above the progress line on a terminal. */
    void say(String line) {
        if (terminal && !shown.isEmpty()) {
            out.print('\r' + pad("", columns) + '\r');
            out.println(line);
            out.print(shown);
            columns = shown.length();
        } else {
            out.println(line);
        }
        out.flush();
    }

    /** Ends the progress line: on a terminal it is cleared, so what follows starts on a clean line. */
    void finish() {
        if (terminal && !shown.isEmpty()) {
            out.print('\r' + pad("", columns) + '\r');
            out.flush();
        }
        shown = "";
        columns = 0;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
