package dev.tandem.tools.lab;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a lab is made of, checked before anything is built (no root needed): its name prefix, topology,
 * and how many hosts and adapters per host; and from that every name and address in it.
 *
 * <p>Host {@code i} is the namespace {@code PREFIX-hI}; its adapter {@code k} is the link {@code aK} in
 * it, with address {@code 10.77.K.I/24}: one subnet per fabric. A switched lab adds the namespace
 * {@code PREFIX-sw} with a bridge {@code switchK} per fabric (address {@code 10.77.K.254}, routing
 * between fabrics) and the switch end {@code hIaK} of each host's cable. A switchless lab has exactly two
 * hosts; the cable of {@code h1.aK} ends in {@code h2.aK}.
 *
 * @param prefix    namespace name prefix: a letter or digit, then up to 23 letters, digits, {@code _} or {@code -}
 * @param topology  switched or switchless
 * @param hosts     2..{@value #MAX_HOSTS} (switchless: exactly 2)
 * @param adapters  adapters per host, 1..{@value #MAX_ADAPTERS}
 */
public record LabPlan(String prefix, Topology topology, int hosts, int adapters) {
    /** The prefix when none is given. */
    public static final String DEFAULT_PREFIX = "tandem";
    /** Most hosts a lab may have (host numbers stay below the switches' address {@code .254}). */
    public static final int MAX_HOSTS = 64;
    /** Most adapters per host. */
    public static final int MAX_ADAPTERS = 8;
    /** Second byte of every lab address: fabric k is {@code 10.77.k.0/24}. */
    public static final int BASE = 77;
    /** Last byte of a switch's own address on its fabric. */
    public static final int SWITCH_HOST_BYTE = 254;
    /** Routing table (and rule priority offset) of adapter k: {@code 100 + k}. */
    static final int TABLE_BASE = 100;

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,23}");
    private static final int MAX_LISTED_TARGETS = 16;

    public LabPlan {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(topology, "topology");
        checkPrefix(prefix);
        if (topology == Topology.SWITCHLESS && hosts != 2) {
            throw new IllegalArgumentException("a switchless lab has exactly 2 hosts (adapter k of one cabled to adapter k of the other),"
                    + " not " + hosts + ": drop --hosts or use --switched for more hosts");
        }
        if (hosts < 2 || hosts > MAX_HOSTS) {
            throw new IllegalArgumentException("a lab has 2 to " + MAX_HOSTS + " hosts, not " + hosts);
        }
        if (adapters < 1 || adapters > MAX_ADAPTERS) {
            throw new IllegalArgumentException("a lab host has 1 to " + MAX_ADAPTERS + " adapters, not " + adapters);
        }
    }

    /**
     * {@code prefix} if it can name a lab's namespaces.
     *
     * @throws IllegalArgumentException saying what a prefix may hold
     */
    public static String checkPrefix(String prefix) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("prefix '" + prefix + "' is not usable in namespace names: give a letter or digit"
                    + " followed by up to 23 letters, digits, '_' or '-' (e.g. " + DEFAULT_PREFIX + ")");
        }
        return prefix;
    }

    /** A switched lab of 2 hosts with 2 adapters each, named {@value #DEFAULT_PREFIX}. */
    public static LabPlan defaults() {
        return new LabPlan(DEFAULT_PREFIX, Topology.SWITCHED, 2, 2);
    }

    /** True when {@code namespace} belongs to a lab named {@code prefix}: {@code PREFIX-sw} or {@code PREFIX-hN}. */
    public static boolean isLabNamespace(String prefix, String namespace) {
        if (!namespace.startsWith(prefix + "-")) {
            return false;
        }
        String rest = namespace.substring(prefix.length() + 1);
        return rest.equals("sw") || rest.matches("h[1-9][0-9]{0,5}");
    }

    /** The namespace of host {@code host}: {@code PREFIX-hI}. */
    public String hostNamespace(int host) {
        checkHost(host);
        return prefix + "-h" + host;
    }

    /** The namespace of the switches: {@code PREFIX-sw}. */
    public String switchNamespace() {
        if (topology != Topology.SWITCHED) {
            throw new IllegalStateException("lab " + prefix + " is switchless: it has no switch namespace");
        }
        return switchNamespace(prefix);
    }

    /** The switch namespace of a switched lab named {@code prefix}. */
    static String switchNamespace(String prefix) {
        return prefix + "-sw";
    }

    /** Every namespace of the lab: the hosts, then (switched) the switches. */
    public List<String> namespaces() {
        List<String> all = new ArrayList<>();
        for (int i = 1; i <= hosts; i++) {
            all.add(hostNamespace(i));
        }
        if (topology == Topology.SWITCHED) {
            all.add(switchNamespace());
        }
        return List.copyOf(all);
    }

    /** The link of adapter {@code adapter} inside its host: {@code aK}. */
    public String adapterLink(int adapter) {
        checkAdapter(adapter);
        return "a" + adapter;
    }

    /** Adapter {@code adapter} of host {@code host}, as a link. */
    public LinkEnd adapterEnd(int host, int adapter) {
        return new LinkEnd(hostNamespace(host), adapterLink(adapter));
    }

    /** The bridge of fabric {@code fabric} in the switch namespace: {@code switchK}. */
    public LinkEnd switchEnd(int fabric) {
        checkAdapter(fabric);
        return new LinkEnd(switchNamespace(), "switch" + fabric);
    }

    /** The switch end of the cable of adapter {@code adapter} of host {@code host}: {@code hIaK} in the switch namespace. */
    public LinkEnd switchPortEnd(int host, int adapter) {
        checkHost(host);
        checkAdapter(adapter);
        return new LinkEnd(switchNamespace(), "h" + host + "a" + adapter);
    }

    /** Where the cable of adapter {@code adapter} of host {@code host} ends: its switch port, or (switchless) the other host's adapter. */
    public LinkEnd cableFarEnd(int host, int adapter) {
        return topology == Topology.SWITCHED ? switchPortEnd(host, adapter) : adapterEnd(3 - host, adapter);
    }

    /** The address of adapter {@code adapter} of host {@code host}: {@code 10.77.K.I}. */
    public Inet4Address address(int host, int adapter) {
        checkHost(host);
        checkAdapter(adapter);
        return ipv4(BASE, adapter, host);
    }

    /** The switch's own address on fabric {@code fabric} (switched labs): {@code 10.77.K.254}, the hosts' gateway to other fabrics. */
    public Inet4Address switchAddress(int fabric) {
        switchNamespace();
        checkAdapter(fabric);
        return ipv4(BASE, fabric, SWITCH_HOST_BYTE);
    }

    /** The subnet of fabric {@code fabric}: {@code 10.77.K.0/24}. */
    public String subnet(int fabric) {
        checkAdapter(fabric);
        return "10." + BASE + "." + fabric + ".0/24";
    }

    /** Every lab address: {@code 10.77.0.0/16}. */
    public static String allFabrics() {
        return "10." + BASE + ".0.0/16";
    }

    /** E.g. {@code switched, 2 hosts, 2 adapters each}. */
    public String describe() {
        return topology.word() + ", " + hosts + " hosts, " + adapters + (adapters == 1 ? " adapter each" : " adapters each");
    }

    /**
     * {@code target} if this lab has it.
     *
     * @throws IllegalArgumentException saying why not, and listing the targets this lab has
     */
    public Target check(Target target) {
        String why = switch (target) {
            case Target.Adapter a -> has(a) ? null : "lab " + prefix + " has no " + a.name();
            case Target.Switch s -> topology != Topology.SWITCHED ? "lab " + prefix + " is switchless: it has no switches"
                    : s.fabric() > adapters ? "lab " + prefix + " has no " + s.name() : null;
            case Target.Cable c -> cableProblem(c);
        };
        if (why != null) {
            throw new IllegalArgumentException(target.name() + ": " + why + " (" + describe() + "); valid targets: " + validTargets());
        }
        return target;
    }

    private String cableProblem(Target.Cable c) {
        if (topology == Topology.SWITCHED) {
            return "lab " + prefix + " is switched: each adapter is cabled to its fabric's switch, not to another host;"
                    + " fail the adapter or the switch";
        }
        if (!has(c.one()) || !has(c.other())) {
            return "lab " + prefix + " has no " + (has(c.one()) ? c.other() : c.one()).name();
        }
        if (c.one().host() == c.other().host() || c.one().adapter() != c.other().adapter()) {
            return "no cable joins them: adapter k of h1 is cabled to adapter k of h2";
        }
        return null;
    }

    private boolean has(Target.Adapter a) {
        return a.host() <= hosts && a.adapter() <= adapters;
    }

    /** The links that failing or healing {@code target} switches off or on. */
    public List<LinkEnd> ends(Target target) {
        check(target);
        return switch (target) {
            case Target.Adapter a -> List.of(adapterEnd(a.host(), a.adapter()));
            case Target.Switch s -> List.of(switchEnd(s.fabric()));
            case Target.Cable c -> List.of(adapterEnd(c.one().host(), c.one().adapter()), adapterEnd(c.other().host(), c.other().adapter()));
        };
    }

    /** The targets of this lab, listed when few, else as ranges. */
    public String validTargets() {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= hosts; i++) {
            for (int k = 1; k <= adapters; k++) {
                names.add(new Target.Adapter(i, k).name());
            }
        }
        for (int k = 1; k <= adapters; k++) {
            names.add(topology == Topology.SWITCHED ? new Target.Switch(k).name()
                    : new Target.Cable(new Target.Adapter(1, k), new Target.Adapter(2, k)).name());
        }
        if (names.size() <= MAX_LISTED_TARGETS) {
            return String.join(", ", names);
        }
        String fabrics = "K in 1.." + adapters;
        return "hI.aK for I in 1.." + hosts + " and " + fabrics + ", switchK for " + fabrics;
    }

    /** The routing table of adapter {@code adapter} in its host: what a socket bound to the adapter's address uses. */
    int routingTable(int adapter) {
        checkAdapter(adapter);
        return TABLE_BASE + adapter;
    }

    private void checkHost(int host) {
        if (host < 1 || host > hosts) {
            throw new IllegalArgumentException("lab " + prefix + " has hosts 1.." + hosts + ", not " + host);
        }
    }

    private void checkAdapter(int adapter) {
        if (adapter < 1 || adapter > adapters) {
            throw new IllegalArgumentException("lab " + prefix + " has adapters (fabrics) 1.." + adapters + ", not " + adapter);
        }
    }

    private static Inet4Address ipv4(int b, int c, int d) {
        try {
            return (Inet4Address) InetAddress.getByAddress(new byte[]{10, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new IllegalStateException("four bytes are always an IPv4 address", e);
        }
    }
}
