package dev.tandem.tools.perf;

import java.util.List;

/**
 * Everything one {@code tandem perf} run measured, for the text and JSON printers.
 *
 * @param settings what was asked for
 * @param local    the client-side adapter address
 * @param remote   the server-side address connected to
 * @param crc      whether MPA CRC was in use (either side asking turns it on)
 * @param results  one entry per size, in order
 */
public record PerfReport(PerfSettings settings, String local, String remote, boolean crc, List<SizeResult> results) {
    public PerfReport {
        results = List.copyOf(results);
    }

    public static PerfReport of(PerfSettings settings, MeasuredRun run) {
        return new PerfReport(settings, run.local(), run.remote(), run.crc(), run.results());
    }
}
