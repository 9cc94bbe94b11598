package dev.tandem.tools.lab;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The links of one lab namespace as read from the system.
 *
 * @param namespace the namespace
 * @param links     its links other than {@code lo}
 */
public record NamespaceState(String namespace, List<LinkState> links) {
    public NamespaceState {
        Objects.requireNonNull(namespace, "namespace");
        links = List.copyOf(links);
    }

    /** Reads the links of {@code namespace} with {@code ip -n NAMESPACE -br link} and {@code -br addr}. */
    static NamespaceState read(Ip ip, String namespace) {
        return new NamespaceState(namespace, LinkState.parse(ip.run("-n", namespace, "-br", "link"), ip.run("-n", namespace, "-br", "addr")));
    }

    /** The link named {@code name}, if the namespace has it. */
    public Optional<LinkState> link(String name) {
        return links.stream().filter(l -> l.name().equals(name)).findFirst();
    }
}
