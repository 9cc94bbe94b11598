package dev.tandem.tools.perf;

import java.util.List;

/**
 * What a server did for one client.
 *
 * @param client  the client's address
 * @param hello   what the client asked for
 * @param crc     whether MPA CRC was in use
 * @param tandem  the server side of each Tandem phase
 * @param baseline the server side of each baseline phase (empty without a baseline)
 */
public record ServedRun(String client, Hello.Client hello, boolean crc, List<SideResult> tandem, List<SideResult> baseline) {
    public ServedRun {
        tandem = List.copyOf(tandem);
        baseline = List.copyOf(baseline);
    }
}
