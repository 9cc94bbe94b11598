package dev.tandem.tools.lab;

import java.net.Inet4Address;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A lab that exists: namespaces as hosts, veth pairs as cables, and (switched) bridges as switches, built
 * from a {@link LabPlan} by {@link #up} or found again by {@link #attach}. It pulls and plugs cables and
 * powers switches off and on ({@link #fail}, {@link #heal}), runs programs on a host ({@link #inHost}),
 * and removes itself ({@link #down}, also on {@link #close}).
 *
 * <p>Each host routes what a socket bound to adapter k's address sends through adapter k only (a rule
 * and a routing table per adapter), so an adapter behaves like a NIC of its own: when its cable is
 * pulled, nothing bound to it gets through another adapter. In a switched lab the switch namespace routes
 * between fabrics, so any adapter reaches any other host's adapter while both switches are up.
 */
public final class Lab implements AutoCloseable {
    /** How long links may take to settle after a change before that is an error. */
    public static final Duration SETTLE = Duration.ofSeconds(5);

    private static final long SETTLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int RULE_PRIORITY_BASE = 1000;

    private final LabPlan plan;
    private final Ip ip;

    private Lab(LabPlan plan, Ip ip) {
        this.plan = Objects.requireNonNull(plan, "plan");
        this.ip = Objects.requireNonNull(ip, "ip");
    }

    /** Builds {@code plan} with this system's {@code ip}; see {@link #up(LabPlan, Ip)}. */
    public static Lab up(LabPlan plan) {
        return up(plan, Ip.system());
    }

    /**
     * Builds {@code plan} and waits until its links are up. A build that fails part way removes what it
     * built before it throws.
     *
     * @throws LabException when a namespace of the lab exists already (nothing is touched then), or a step fails
     */
    public static Lab up(LabPlan plan, Ip ip) {
        List<String> existing = LabStatus.namespaces(plan.prefix(), ip);
        if (!existing.isEmpty()) {
            throw new LabException("lab " + plan.prefix() + " exists already (" + String.join(", ", existing) + "): 'tandem lab down"
                    + prefixOption(plan.prefix()) + "' removes it");
        }
        Lab lab = new Lab(plan, ip);
        try {
            lab.build();
            lab.awaitSettled();
            return lab;
        } catch (RuntimeException e) {
            try {
                down(plan.prefix(), ip);
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * The lab named {@code prefix} as it exists now.
     *
     * @throws LabException when there is none, or what is left does not make a whole lab
     */
    public static Lab attach(String prefix, Ip ip) {
        LabPlan.checkPrefix(prefix);
        LabStatus status = LabStatus.read(prefix, ip);
        if (status.isEmpty()) {
            throw new LabException("there is no lab " + prefix + ": 'tandem lab up" + prefixOption(prefix) + "' builds one");
        }
        return new Lab(status.plan().orElseThrow(() -> new LabException("lab " + prefix + " is incomplete ("
                + status.problem().orElseThrow() + "): 'tandem lab down" + prefixOption(prefix) + "' removes what is left")), ip);
    }

    /**
     * Deletes every namespace of the lab named {@code prefix} that exists, whole or not (after a crash or a
     * half-built lab). Deleting a host's or the switch's namespace removes the cables in it. Doing it again
     * does nothing.
     *
     * @return the namespaces deleted
     */
    public static List<String> down(String prefix, Ip ip) {
        LabPlan.checkPrefix(prefix);
        List<String> deleted = new ArrayList<>();
        for (String ns : LabStatus.namespaces(prefix, ip)) {
            try {
                ip.run("netns", "delete", ns);
                deleted.add(ns);
            } catch (LabException e) {
                if (LabStatus.namespaces(prefix, ip).contains(ns)) {
                    throw e;
                }
                // deleted meanwhile by someone else: what down is for
            }
        }
        return List.copyOf(deleted);
    }

    /** What this lab is made of. */
    public LabPlan plan() {
        return plan;
    }

    /** The address of adapter {@code adapter} of host {@code host}. */
    public Inet4Address address(int host, int adapter) {
        return plan.address(host, adapter);
    }

    /** The network namespace of host {@code host}. */
    public String namespace(int host) {
        return plan.hostNamespace(host);
    }

    /** A process builder that runs {@code command} on host {@code host}; the caller starts it and owns the process. */
    public ProcessBuilder inHost(int host, List<String> command) {
        return ip.exec(namespace(host), command);
    }

    /** As {@link #inHost(int, List)}. */
    public ProcessBuilder inHost(int host, String... command) {
        return inHost(host, List.of(command));
    }

    /** Fails the target named {@code target}, e.g. {@code h1.a1} or {@code switch1}; see {@link #fail(Target)}. */
    public void fail(String target) {
        fail(Target.parse(target));
    }

    /**
     * Pulls an adapter's cable (its link goes down inside its host: the host's routes through it go, and
     * what peers send to it vanishes, with no FIN or RST), powers a switch off (its bridge stops forwarding
     * and routing; hosts keep their link), or cuts a switchless cable (both ends down). Returns once the
     * links settled. Failing what is failed already changes nothing.
     *
     * @throws IllegalArgumentException when the lab has no such target
     */
    public void fail(Target target) {
        for (LinkEnd end : plan.ends(target)) {
            ip.run("-n", end.namespace(), "link", "set", end.link(), "down");
        }
        awaitSettled();
    }

    /** Heals the target named {@code target}; see {@link #heal(Target)}. */
    public void heal(String target) {
        heal(Target.parse(target));
    }

    /**
     * Undoes {@link #fail(Target)}: the links come up, and a healed adapter gets its routes back. Returns once
     * the links settled. Healing what is healthy changes nothing.
     *
     * @throws IllegalArgumentException when the lab has no such target
     */
    public void heal(Target target) {
        for (LinkEnd end : plan.ends(target)) {
            ip.run("-n", end.namespace(), "link", "set", end.link(), "up");
        }
        switch (target) {
            case Target.Adapter a -> adapterRoutes(a.host(), a.adapter());
            case Target.Cable c -> {
                adapterRoutes(c.one().host(), c.one().adapter());
                adapterRoutes(c.other().host(), c.other().adapter());
            }
            case Target.Switch s -> {
                // the switch's own route comes back with its link; the hosts' routes stayed
            }
        }
        awaitSettled();
    }

    /** The lab's namespaces and links as they are now. */
    public LabStatus status() {
        return LabStatus.read(plan.prefix(), ip);
    }

    /** Deletes the lab; see {@link #down(String, Ip)}. */
    public void down() {
        down(plan.prefix(), ip);
    }

    /** {@link #down()}. */
    @Override
    public void close() {
        down();
    }

    private void build() {
        for (String ns : plan.namespaces()) {
            ip.run("netns", "add", ns);
            ip.run("-n", ns, "link", "set", "lo", "up");
        }
        if (plan.topology() == Topology.SWITCHED) {
            buildSwitched();
        } else {
            buildSwitchless();
        }
    }

    private void buildSwitched() {
        String sw = plan.switchNamespace();
        enableForwarding(sw);
        for (int k = 1; k <= plan.adapters(); k++) {
            String bridge = plan.switchEnd(k).link();
            ip.run("-n", sw, "link", "add", bridge, "type", "bridge");
            ip.run("-n", sw, "addr", "add", plan.switchAddress(k).getHostAddress() + "/24", "dev", bridge);
            ip.run("-n", sw, "link", "set", bridge, "up");
        }
        for (int i = 1; i <= plan.hosts(); i++) {
            for (int k = 1; k <= plan.adapters(); k++) {
                LinkEnd port = plan.switchPortEnd(i, k);
                ip.run("-n", plan.hostNamespace(i), "link", "add", plan.adapterLink(k), "type", "veth", "peer", "name", port.link(),
                        "netns", sw);
                ip.run("-n", sw, "link", "set", port.link(), "master", plan.switchEnd(k).link());
                ip.run("-n", sw, "link", "set", port.link(), "up");
                configureAdapter(i, k);
            }
        }
    }

    private void buildSwitchless() {
        for (int k = 1; k <= plan.adapters(); k++) {
            String link = plan.adapterLink(k);
            ip.run("-n", plan.hostNamespace(1), "link", "add", link, "type", "veth", "peer", "name", link, "netns", plan.hostNamespace(2));
            configureAdapter(1, k);
            configureAdapter(2, k);
        }
    }

    /** The switches route between fabrics: IPv4 forwarding on in the switch namespace. */
    private void enableForwarding(String sw) {
        ip.run("netns", "exec", sw, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward");
    }

    /** Address, link up, and the rule and table that keep what is bound to the adapter's address on the adapter. */
    private void configureAdapter(int host, int adapter) {
        String ns = plan.hostNamespace(host);
        String link = plan.adapterLink(adapter);
        String table = Integer.toString(plan.routingTable(adapter));
        ip.run("-n", ns, "addr", "add", plan.address(host, adapter).getHostAddress() + "/24", "dev", link);
        ip.run("-n", ns, "link", "set", link, "up");
        ip.run("-n", ns, "rule", "add", "from", plan.address(host, adapter).getHostAddress(), "lookup", table,
                "priority", Integer.toString(RULE_PRIORITY_BASE + adapter));
        ip.run("-n", ns, "route", "add", "unreachable", "default", "table", table);
        adapterRoutes(host, adapter);
    }

    /** The routes of the adapter's own table: its fabric, and (switched) the other fabrics through its switch. */
    private void adapterRoutes(int host, int adapter) {
        String ns = plan.hostNamespace(host);
        String link = plan.adapterLink(adapter);
        String table = Integer.toString(plan.routingTable(adapter));
        ip.run("-n", ns, "route", "replace", plan.subnet(adapter), "dev", link, "src", plan.address(host, adapter).getHostAddress(),
                "table", table);
        if (plan.topology() == Topology.SWITCHED) {
            ip.run("-n", ns, "route", "replace", LabPlan.allFabrics(), "via", plan.switchAddress(adapter).getHostAddress(), "dev", link,
                    "table", table);
        }
    }

    /**
     * Waits until every link's operational state agrees with its carrier: the kernel applies carrier
     * changes asynchronously, and a link that has not caught up may still drop packets.
     *
     * @throws LabException naming the links that did not settle within {@link #SETTLE}
     */
    private void awaitSettled() {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (true) {
            List<String> unsettled = new ArrayList<>();
            for (String ns : plan.namespaces()) {
                for (LinkState link : LinkState.parse(ip.run("-n", ns, "-br", "link"), "")) {
                    if (!link.settled()) {
                        unsettled.add(ns + " " + link.name() + " (state " + link.state() + ", carrier " + (link.carrier() ? "on" : "off") + ")");
                    }
                }
            }
            if (unsettled.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new LabException("links of lab " + plan.prefix() + " did not settle within " + SETTLE.toMillis() + " ms: "
                        + String.join(", ", unsettled));
            }
            LockSupport.parkNanos(SETTLE_POLL_NANOS);
        }
    }

    /** {@code " --prefix P"}, or nothing for the default prefix: for the commands quoted in messages. */
    static String prefixOption(String prefix) {
        return prefix.equals(LabPlan.DEFAULT_PREFIX) ? "" : " --prefix " + prefix;
    }
}
