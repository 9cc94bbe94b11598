package dev.tandem.tools.lab;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What exists of a lab right now, read from the system: its namespaces and their links, and the plan
 * they add up to (or why they do not: a half-built lab, or one whose builder crashed).
 *
 * @param prefix     the lab's name prefix
 * @param namespaces its namespaces, hosts in order, then the switches
 */
public record LabStatus(String prefix, List<NamespaceState> namespaces) {
    private static final Pattern ADAPTER_LINK = Pattern.compile("a[1-9][0-9]*");

    public LabStatus {
        Objects.requireNonNull(prefix, "prefix");
        namespaces = List.copyOf(namespaces);
    }

    /** Reads the lab named {@code prefix}: {@code ip netns list}, then the links of each of its namespaces. */
    public static LabStatus read(String prefix, Ip ip) {
        List<NamespaceState> states = new ArrayList<>();
        for (String ns : namespaces(prefix, ip)) {
            states.add(NamespaceState.read(ip, ns));
        }
        return new LabStatus(prefix, states);
    }

    /** The namespaces of the lab named {@code prefix} that exist, hosts by number, then the switch namespace. */
    public static List<String> namespaces(String prefix, Ip ip) {
        List<String> names = new ArrayList<>();
        for (String line : ip.run("netns", "list").split("\n")) {
            String name = line.strip().split("\\s+")[0];
            if (!name.isEmpty() && LabPlan.isLabNamespace(prefix, name)) {
                names.add(name);
            }
        }
        names.sort(Comparator.comparingLong((String n) -> hostNumber(prefix, n)));
        return List.copyOf(names);
    }

    /** True when nothing of the lab exists. */
    public boolean isEmpty() {
        return namespaces.isEmpty();
    }

    /** The plan the namespaces add up to; empty when {@link #problem()} says why not. */
    public Optional<LabPlan> plan() {
        return Optional.ofNullable(discover().plan());
    }

    /** Why the namespaces do not make a whole lab; empty when they do. */
    public Optional<String> problem() {
        return Optional.ofNullable(discover().problem());
    }

    /** The namespace named {@code name}, if it exists. */
    public Optional<NamespaceState> namespace(String name) {
        return namespaces.stream().filter(n -> n.namespace().equals(name)).findFirst();
    }

    private record Found(LabPlan plan, String problem) {
    }

    private Found discover() {
        if (namespaces.isEmpty()) {
            return new Found(null, "no namespace of lab " + prefix + " exists");
        }
        String switchNs = LabPlan.switchNamespace(prefix);
        List<NamespaceState> hosts = namespaces.stream().filter(n -> !n.namespace().equals(switchNs)).toList();
        for (int i = 0; i < hosts.size(); i++) {
            if (hostNumber(prefix, hosts.get(i).namespace()) != i + 1) {
                return new Found(null, "namespace " + prefix + "-h" + (i + 1) + " is missing");
            }
        }
        if (hosts.isEmpty()) {
            return new Found(null, "only the switch namespace " + switchNs + " is left");
        }
        TreeSet<String> adapters = adapterLinks(hosts.getFirst());
        for (NamespaceState h : hosts) {
            if (!adapterLinks(h).equals(adapters)) {
                return new Found(null, h.namespace() + " has adapters " + adapterLinks(h) + ", " + hosts.getFirst().namespace()
                        + " has " + adapters);
            }
        }
        int count = adapters.size();
        for (int k = 1; k <= count; k++) {
            if (!adapters.contains("a" + k)) {
                return new Found(null, "the adapters of " + hosts.getFirst().namespace() + " are not a1..a" + count + ": " + adapters);
            }
        }
        Optional<NamespaceState> sw = namespace(switchNs);
        for (int k = 1; sw.isPresent() && k <= count; k++) {
            if (sw.get().link("switch" + k).isEmpty()) {
                return new Found(null, switchNs + " has no switch" + k);
            }
        }
        try {
            return new Found(new LabPlan(prefix, sw.isPresent() ? Topology.SWITCHED : Topology.SWITCHLESS, hosts.size(), count), null);
        } catch (IllegalArgumentException e) {
            return new Found(null, e.getMessage());
        }
    }

    private static TreeSet<String> adapterLinks(NamespaceState host) {
        TreeSet<String> names = new TreeSet<>(Comparator.comparingInt(String::length).thenComparing(Comparator.naturalOrder()));
        host.links().stream().map(LinkState::name).filter(n -> ADAPTER_LINK.matcher(n).matches()).forEach(names::add);
        return names;
    }

    /** The host number of a lab namespace; {@link Long#MAX_VALUE} for the switch namespace, so it sorts last. */
    private static long hostNumber(String prefix, String namespace) {
        String rest = namespace.substring(prefix.length() + 1);
        return rest.equals("sw") ? Long.MAX_VALUE : Long.parseLong(rest.substring(1));
    }
}
