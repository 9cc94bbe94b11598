package dev.tandem.failover.check;

import dev.tandem.verbs.CompletionStatus;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a checked stream proved. Bytes count the Sends and the blocks of the Writes; received bytes
 * count what arrived once and intact. {@code lost} counts messages the sender saw complete that never
 * arrived (a gap that stayed open, or missing at the end) and blocks not found where announced;
 * {@code duplicated} and {@code reordered} count messages that arrived again or after later ones, and
 * completions out of posting order; {@code checksumErrors} counts corrupt messages and blocks;
 * {@code errors} counts completions not SUCCESS on either side, by status in {@code errorsByStatus};
 * {@code refused} counts posts and polls a device refused with an exception (a failed adapter does).
 * The credits that flow back from receiver to sender are checked the same way and counted here too.
 *
 * @param problems the first problems in words, for a human to read when the verdict is not clean
 * @param ending   how the run ended; {@link Ending#IN_PROGRESS} for a view taken while it runs, when
 *                 {@code lost} holds only the gaps so far
 */
public record Verdict(long messagesSent, long messagesReceived, long bytesSent, long bytesReceived, long blocksWritten,
                      long blocksVerified, long lost, long duplicated, long reordered, long checksumErrors, long errors,
                      Map<CompletionStatus, Long> errorsByStatus, long refused, List<String> problems, Ending ending) {
    /** How a run ended. */
    public enum Ending {
        /** Still running: a progress view. */
        IN_PROGRESS,
        /** Every message asked for was sent, and what was sent was reaped on both sides. */
        COMPLETE,
        /** Stopped on request; what was sent before was reaped on both sides. */
        STOPPED,
        /** A completion in error ended it (on a plain adapter, a fault does). */
        BROKEN,
        /** Nothing moved for the stall limit. */
        STALLED
    }

    public Verdict {
        errorsByStatus = errorsByStatus.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(errorsByStatus));
        problems = List.copyOf(problems);
    }

    /**
     * Nothing lost, duplicated, reordered or corrupt, no completion in error or refused post, everything sent arrived
     * (messages, blocks and bytes), and the run completed or was stopped.
     */
    public boolean clean() {
        return (ending == Ending.COMPLETE || ending == Ending.STOPPED) && lost == 0 && duplicated == 0 && reordered == 0
                && checksumErrors == 0 && errors == 0 && refused == 0 && messagesReceived == messagesSent && blocksVerified == blocksWritten
                && bytesReceived == bytesSent;
    }

    /** The verdict as one JSON object on one line, with {@code clean}. */
    public String json() {
        return "{" + jsonMembers() + ", \"clean\": " + clean() + "}";
    }

    /**
     * The members of {@link #json()} without the braces and {@code clean}, for a caller that adds its own
     * (the demo adds each fail-over's pause).
     */
    public String jsonMembers() {
        StringBuilder j = new StringBuilder();
        j.append("\"messages_sent\": ").append(messagesSent)
                .append(", \"messages_received\": ").append(messagesReceived)
                .append(", \"bytes_sent\": ").append(bytesSent)
                .append(", \"bytes_received\": ").append(bytesReceived)
                .append(", \"blocks_written\": ").append(blocksWritten)
                .append(", \"blocks_verified\": ").append(blocksVerified)
                .append(", \"lost\": ").append(lost)
                .append(", \"duplicated\": ").append(duplicated)
                .append(", \"reordered\": ").append(reordered)
                .append(", \"checksum_errors\": ").append(checksumErrors)
                .append(", \"errors\": ").append(errors)
                .append(", \"errors_by_status\": {");
        String sep = "";
        for (CompletionStatus s : CompletionStatus.values()) {
            Long n = errorsByStatus.get(s);
            if (n != null) {
                j.append(sep).append('"').append(s.name()).append("\": ").append(n);
                sep = ", ";
            }
        }
        j.append("}, \"refused\": ").append(refused).append(", \"ending\": \"").append(ending.name()).append("\", \"problems\": [");
        for (int i = 0; i < problems.size(); i++) {
            j.append(i == 0 ? "" : ", ").append(quote(problems.get(i)));
        }
        return j.append(']').toString();
    }

    /** {@code s} as a JSON string. */
    static String quote(String s) {
        StringBuilder q = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                case '\r' -> q.append("\\r");
                case '\t' -> q.append("\\t");
                default -> {
                    if (c < 0x20) {
                        q.append(String.format("\\u%04x", (int) c));
                    } else {
                        q.append(c);
                    }
                }
            }
        }
        return q.append('"').toString();
    }
}
