package dev.tandem.tools.perf;

import java.util.List;

/**
 * What a client measured.
 *
 * @param local   the client adapter's address
 * @param remote  the server's address
 * @param crc     whether MPA CRC was in use
 * @param results one entry per size
 */
public record MeasuredRun(String local, String remote, boolean crc, List<SizeResult> results) {
    public MeasuredRun {
        results = List.copyOf(results);
    }
}
