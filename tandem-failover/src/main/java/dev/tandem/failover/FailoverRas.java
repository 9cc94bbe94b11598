package dev.tandem.failover;

import dev.tandem.provider.ResourceRas;
import dev.tandem.ras.Counter;
import dev.tandem.ras.CounterType;
import dev.tandem.ras.ErrorLog;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasFile;
import dev.tandem.ras.TraceComponent;
import dev.tandem.ras.TraceEvent;
import dev.tandem.ras.TraceLevel;
import dev.tandem.verbs.PortState;
import dev.tandem.verbs.RdmaDevice;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one fail-over device reports into the process's RAS file, read from outside by {@code tandem
 * stat}, {@code tandem errors}, {@code tandem trace} and {@code tandem dump}, all derived from the
 * {@link FailoverEvent}s the device tells ({@link #told}):
 *
 * <ul>
 * <li>counters of type {@link CounterType#FAILOVER}, labelled {@code <device> <name>}, owner key the
 *     device's number: fail-overs (connections that started to move, {@code Holding}) in all and per
 *     {@link FailoverCause}; paths down and restored; REPORTs sent and received; sessions moved
 *     ({@code Migrated}); receive completions rebuilt, receives, Sends and Writes re-posted; completions of
 *     stale QPs dropped; connections with no path left; and the pause of a fail-over (fault to MIGRATED)
 *     in nanoseconds: the last, the largest and the total, whose mean is {@code pause total ns / sessions moved};</li>
 * <li>the trace component {@code failover}: a path down and no path left at level 1 (errors), a
 *     connection holding, migrated and a path up at level 2 (rare), REPORTs and the work moved at level 5
 *     (control-path internals); each record's A is the device's number, B the QP (or adapter);</li>
 * <li>the error log: each distinct cause of a path down, of a lost connection and of no path left once,
 *     with its count (numbers in the cause count as one, as {@link ErrorLog#causeOf} does);</li>
 * <li>the device's state in every dump ({@link FailoverSnapshot}).</li>
 * </ul>
 *
 * Counters take atomic updates: the monitor tells the events, application threads drop stale
 * completions. Holds one use of {@link ProcessRas} until {@link #close()}.
 */
final class FailoverRas implements AutoCloseable {
    /** Level 1: an adapter stopped carrying work (B adapter, C the {@link FailoverCause}'s ordinal, text the cause). */
    static final TraceEvent PATH_DOWN = TraceEvent.of("path-dn");
    /** Level 2: a connection holds its posts to move (B QP, C from adapter, D to adapter, text the cause). */
    static final TraceEvent HOLDING = TraceEvent.of("holding");
    /** Level 5: this side's REPORT went out (B QP, C LAST RELIABLY SENT, D LAST RELIABLY RECEIVED). */
    static final TraceEvent REPORTED = TraceEvent.of("report");
    /** Level 5: the peer's REPORT came (B QP, C its LAST RELIABLY SENT, D its LAST RELIABLY RECEIVED). */
    static final TraceEvent PEER_REPORTED = TraceEvent.of("peer-rep");
    /** Level 5: the work moved (B QP, C Sends re-posted, D Writes re-posted, text receives rebuilt and re-posted). */
    static final TraceEvent MOVED = TraceEvent.of("moved");
    /** Level 2: both sides MIGRATED, posts run again (B QP, C to adapter, D pause in ns). */
    static final TraceEvent MIGRATED = TraceEvent.of("migrated");
    /** Level 2: an adapter carries work again (B adapter). */
    static final TraceEvent PATH_UP = TraceEvent.of("path-up");
    /** Level 1: a connection has no path left and fails (B QP, text the cause). */
    static final TraceEvent NO_PATH = TraceEvent.of("no-path");

    private static final Pattern NUMBER = Pattern.compile("0[xX][0-9a-fA-F]+|[0-9]+");
    private static final Pattern DEVICE_NUMBER = Pattern.compile("failover(\\d{1,9})@.*");

    private final FailoverDevice owner;
    private final String device;
    private final long key;
    private final RasFile file;
    private final TraceComponent trace;
    private final FailoverSnapshot snapshot;
    private final Counter failovers;
    private final Map<FailoverCause, Counter> failoversBy = new EnumMap<>(FailoverCause.class);
    private final Counter pathsDown;
    private final Counter pathsRestored;
    private final Counter reportsSent;
    private final Counter reportsReceived;
    private final Counter sessionsMoved;
    private final Counter rebuilt;
    private final Counter receivesReposted;
    private final Counter sendsReposted;
    private final Counter writesReposted;
    private final Counter staleDropped;
    private final Counter duplicates;
    private final Counter noPathLeft;
    private final Counter pauseLast;
    private final Counter pauseMax;
    private final Counter pauseTotal;
    private final Counter[] all;
    private volatile boolean closed;

    /** Counters, trace component and dump source of {@code device} (its name and adapters known, its monitor made). */
    FailoverRas(FailoverDevice device) {
        this.owner = device;
        this.device = device.name();
        this.key = numberOf(this.device);
        this.file = ProcessRas.acquire();
        Counter[] counters = null;
        TraceComponent component;
        try {
            List<String> names = new ArrayList<>();
            names.add("fail-overs");
            for (FailoverCause c : FailoverCause.values()) {
                names.add("fail-overs " + c.label());
            }
            names.addAll(List.of("paths down", "paths restored", "reports sent", "reports received", "sessions moved",
                    "receive completions rebuilt", "receives re-posted", "sends re-posted", "writes re-posted",
                    "stale completions dropped", "duplicates dropped", "no path left", "pause last ns", "pause max ns", "pause total ns"));
            counters = ResourceRas.allocate(file, CounterType.FAILOVER.id(), this.device, key, names.toArray(String[]::new));
            component = file.trace().component("failover");
        } catch (RuntimeException e) {
            if (counters != null) {
                ResourceRas.closeAll(counters);
            }
            ProcessRas.release();
            throw e;
        }
        this.all = counters;
        this.trace = component;
        int i = 0;
        failovers = all[i++];
        for (FailoverCause c : FailoverCause.values()) {
            failoversBy.put(c, all[i++]);
        }
        pathsDown = all[i++];
        pathsRestored = all[i++];
        reportsSent = all[i++];
        reportsReceived = all[i++];
        sessionsMoved = all[i++];
        rebuilt = all[i++];
        receivesReposted = all[i++];
        sendsReposted = all[i++];
        writesReposted = all[i++];
        staleDropped = all[i++];
        duplicates = all[i++];
        noPathLeft = all[i++];
        pauseLast = all[i++];
        pauseMax = all[i++];
        pauseTotal = all[i];
        this.snapshot = new FailoverSnapshot(device);
        ProcessRas.addSnapshotSource(snapshot);
    }

    /** The number in a device's name ({@code failover3@a}: 3), the owner key of its counters; 0 for another name. */
    static long numberOf(String deviceName) {
        Matcher m = DEVICE_NUMBER.matcher(deviceName);
        return m.matches() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Counts and traces one step of a fail-over; records a failure's cause in the error log. */
    void told(FailoverEvent event) {
        if (closed) {
            return;
        }
        switch (event) {
            case FailoverEvent.PathDown d -> {
                FailoverCause cause = FailoverCause.of(stateOf(d.adapter()), d.cause());
                pathsDown.incrementAtomic();
                error("path down (" + cause.label() + ")", d.cause(), "adapter " + d.adapter());
                trace(TraceLevel.ERROR, PATH_DOWN, d.adapter(), cause.ordinal(), 0, d.cause());
            }
            case FailoverEvent.Holding h -> {
                FailoverCause cause = FailoverCause.of(stateOf(h.fromAdapter()), h.cause());
                failovers.incrementAtomic();
                failoversBy.get(cause).incrementAtomic();
                if (cause == FailoverCause.CONNECTION_LOST) {
                    // the others were logged as their path went down, or are the peer's
                    error("connection lost", h.cause(), "QP " + h.qpNumber() + " on adapter " + h.fromAdapter());
                }
                trace(TraceLevel.RARE, HOLDING, h.qpNumber(), h.fromAdapter(), h.toAdapter(), h.cause());
            }
            case FailoverEvent.Reported r -> {
                reportsSent.incrementAtomic();
                trace(TraceLevel.INTERNALS, REPORTED, r.qpNumber(), r.lastReliablySent() & 0xFFFF_FFFFL,
                        r.lastReliablyReceived() & 0xFFFF_FFFFL, null);
            }
            case FailoverEvent.PeerReported r -> {
                reportsReceived.incrementAtomic();
                trace(TraceLevel.INTERNALS, PEER_REPORTED, r.qpNumber(), r.lastReliablySent() & 0xFFFF_FFFFL,
                        r.lastReliablyReceived() & 0xFFFF_FFFFL, null);
            }
            case FailoverEvent.Moved m -> {
                rebuilt.addAtomic(m.rebuilt());
                receivesReposted.addAtomic(m.receivesReposted());
                sendsReposted.addAtomic(m.sendsReposted());
                writesReposted.addAtomic(m.writesReposted());
                if (trace.enabled(TraceLevel.INTERNALS)) {
                    trace.record(TraceLevel.INTERNALS, MOVED, key, m.qpNumber(), m.sendsReposted(), m.writesReposted(),
                            "rebuilt " + m.rebuilt() + ", receives re-posted " + m.receivesReposted());
                }
            }
            case FailoverEvent.Migrated m -> {
                sessionsMoved.incrementAtomic();
                pauseLast.set(m.pauseNanos());
                pauseMax.setMaxAtomic(m.pauseNanos());
                pauseTotal.addAtomic(m.pauseNanos());
                trace(TraceLevel.RARE, MIGRATED, m.qpNumber(), m.toAdapter(), m.pauseNanos(), null);
            }
            case FailoverEvent.PathUp u -> {
                pathsRestored.incrementAtomic();
                trace(TraceLevel.RARE, PATH_UP, u.adapter(), 0, 0, null);
            }
            case FailoverEvent.BackupLost l -> trace(TraceLevel.RARE, PATH_DOWN, l.qpNumber(), l.adapter(), 0,
                    "backup path of QP " + l.qpNumber() + " on adapter " + l.adapter() + " lost: " + l.cause());
            case FailoverEvent.PathRestored r -> trace(TraceLevel.RARE, PATH_UP, r.qpNumber(), r.adapter(), 0,
                    "path of QP " + r.qpNumber() + " on adapter " + r.adapter() + " set up again");
            case FailoverEvent.NoPathLeft n -> {
                noPathLeft.incrementAtomic();
                error("no path left", n.cause(), "QP " + n.qpNumber());
                trace(TraceLevel.ERROR, NO_PATH, n.qpNumber(), 0, 0, n.cause());
            }
        }
    }

    /** The port state of adapter {@code k}, null when there is none to tell (no such adapter, or closed). */
    private PortState stateOf(int k) {
        if (k < 0 || k >= owner.adapterCount()) {
            return null;
        }
        RdmaDevice a = owner.adapter(k);
        return a.isClosed() ? null : a.portState();
    }

    /** A completion of a QP a connection left behind was dropped. */
    void staleDropped() {
        if (!closed) {
            staleDropped.incrementAtomic();
        }
    }

    private void trace(int level, TraceEvent event, long b, long c, long d, String text) {
        if (trace.enabled(level)) {
            trace.record(level, event, key, b, c, d, text);
        }
    }

    /** A duplicate message (one the receiver had delivered) was dropped. */
    void duplicateDropped() {
        if (!closed) {
            duplicates.incrementAtomic();
        }
    }

    /** Records {@code cause} once per distinct wording (its numbers as {@code #}), keeping the first one's text. */
    void error(String what, String cause, String where) {
        if (closed) {
            return;
        }
        String text = cause == null ? "(no cause given)" : cause;
        file.errorLog().record(device + ": " + what + ": " + distinct(text), where + ": " + text);
    }

    /** {@code cause} with its numbers replaced, as the error log tells causes apart. */
    static String distinct(String cause) {
        return NUMBER.matcher(cause).replaceAll(n -> n.group().length() > 1 && (n.group().charAt(1) | 0x20) == 'x' ? "0x#" : "#");
    }

    /** Gives the counters back, leaves the dumps, releases the process's RAS file; idempotent. Call once nothing tells events. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        ProcessRas.removeSnapshotSource(snapshot);
        ResourceRas.closeAll(all);
        ProcessRas.release();
    }
}
