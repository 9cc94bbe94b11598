package dev.tandem.tools.demo;

import java.util.List;
import java.util.Locale;

/**
 * What a checked stream proved: counts of messages and bytes each way (a message is a Send and the
 * Write before it), and what went wrong: lost, duplicated, reordered, corrupt (checksum), and
 * completions in error the application saw; with each fail-over's pause.
 *
 * @param firstError the first completion in error, or null
 * @param pausesMs   each fail-over's pause, in ms, in order
 */
record Verdict(long messagesSent, long messagesReceived, long bytesSent, long bytesReceived, long lost, long duplicated,
               long reordered, long checksumErrors, long errors, String firstError, List<Double> pausesMs) {
    Verdict {
        pausesMs = List.copyOf(pausesMs);
    }

    /** Nothing lost, twice, out of order or corrupt, no error, and every message sent arrived. */
    boolean clean() {
        return lost == 0 && duplicated == 0 && reordered == 0 && checksumErrors == 0 && errors == 0 && messagesReceived == messagesSent;
    }

    /** The verdict as one JSON object. */
    String json() {
        StringBuilder p = new StringBuilder("[");
        for (int i = 0; i < pausesMs.size(); i++) {
            p.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", pausesMs.get(i)));
        }
        p.append(']');
        return String.format(Locale.ROOT, "{\"messages_sent\": %d, \"messages_received\": %d, \"bytes_sent\": %d, \"bytes_received\": %d, "
                        + "\"lost\": %d, \"duplicated\": %d, \"reordered\": %d, \"checksum_errors\": %d, \"errors\": %d, "
                        + "\"failovers\": %d, \"pause_ms\": %s, \"clean\": %b}",
                messagesSent, messagesReceived, bytesSent, bytesReceived, lost, duplicated, reordered, checksumErrors, errors,
                pausesMs.size(), p, clean());
    }
}
