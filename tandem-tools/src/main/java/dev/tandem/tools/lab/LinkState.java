package dev.tandem.tools.lab;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One link of a namespace as {@code ip -br link} and {@code ip -br addr} show it.
 *
 * @param name      the link's name (without the {@code @ifN} peer suffix)
 * @param state     the kernel's operational state: {@code UP}, {@code DOWN}, {@code LOWERLAYERDOWN}, {@code UNKNOWN}...
 * @param adminUp   whether the link is switched on ({@code UP} flag); off for a failed adapter or switch
 * @param carrier   whether the link has carrier ({@code LOWER_UP} flag); off when its cable's far end is down
 * @param addresses its IPv4 and global IPv6 addresses with prefix length, e.g. {@code 10.77.1.1/24}
 */
public record LinkState(String name, String state, boolean adminUp, boolean carrier, List<String> addresses) {
    public LinkState {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        addresses = List.copyOf(addresses);
    }

    /**
     * True once the kernel has caught up with a change: the operational state agrees with the carrier
     * (it follows carrier changes asynchronously, and until it does the link may drop packets).
     */
    public boolean settled() {
        return state.equals("UNKNOWN") || state.equals("UP") == carrier;
    }

    /** In words: {@code up}, {@code down} (switched off) or {@code no carrier} (on, but the far end is off). */
    public String condition() {
        return !adminUp ? "down" : carrier ? "up" : "no carrier";
    }

    /**
     * The links in the output of {@code ip -br link} and {@code ip -br addr} of one namespace, in the order
     * of the first; {@code lo} is left out.
     *
     * @throws LabException when a line does not have the brief format
     */
    public static List<LinkState> parse(String briefLink, String briefAddr) {
        Map<String, List<String>> addresses = new HashMap<>();
        for (String line : briefAddr.split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length >= 2) {
                List<String> own = new ArrayList<>();
                for (int i = 2; i < f.length; i++) {
                    if (!f[i].startsWith("fe80:")) {
                        own.add(f[i]);
                    }
                }
                addresses.put(name(f[0]), own);
            }
        }
        List<LinkState> links = new ArrayList<>();
        for (String line : briefLink.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split("\\s+");
            String flags = f[f.length - 1];
            if (f.length < 3 || !flags.startsWith("<") || !flags.endsWith(">")) {
                throw new LabException("unexpected line from 'ip -br link': " + line);
            }
            List<String> flagList = List.of(flags.substring(1, flags.length() - 1).split(","));
            String name = name(f[0]);
            if (!name.equals("lo")) {
                links.add(new LinkState(name, f[1], flagList.contains("UP"), flagList.contains("LOWER_UP"),
                        addresses.getOrDefault(name, List.of())));
            }
        }
        return links;
    }

    private static String name(String field) {
        int at = field.indexOf('@');
        return at < 0 ? field : field.substring(0, at);
    }
}
