package dev.tandem.iwarp;

import dev.tandem.verbs.InvalidArgumentException;

import java.time.Duration;

/**
 * What a listener allows a client between its TCP connect and its complete MPA Request, so that
 * clients that connect and send nothing, or send it slowly (a port scanner, a load balancer's
 * health check, a slowloris attacker), cannot keep well-behaved clients out. A listener reads every
 * Request without blocking, on its one thread, so a pending handshake costs a socket and a few
 * hundred bytes, never a thread.
 *
 * <ul>
 * <li>A handshake whose Request is not complete {@code timeout} after the TCP connect is closed
 * (Linux siw waits 5 s for an MPA Request, the default here).</li>
 * <li>A source address holds at most {@code maxPendingPerSource} handshakes of one listener: a new
 * connection from a source at its bound closes that source's oldest pending handshake.</li>
 * <li>A listener holds at most {@code maxPending} handshakes: a new connection beyond the bound
 * closes the oldest handshake of the source that holds the most, so one busy source loses its own
 * handshakes before any other source loses one.</li>
 * </ul>
 * Closing the oldest (rather than refusing the newest) keeps the listener open to newcomers: a
 * well-behaved client sends its Request at once and finishes long before it is the oldest. Every
 * closed handshake is counted and recorded in the adapter's RAS counters and error log.
 *
 * @param timeout             longest time from the TCP connect to a complete MPA Request
 * @param maxPending          pending handshakes per listener (also the listen socket's backlog)
 * @param maxPendingPerSource pending handshakes per source address and listener
 */
public record HandshakeLimits(Duration timeout, int maxPending, int maxPendingPerSource) {
    /** 5 s (siw's MPA Request timeout), 4096 per listener (Linux's default somaxconn), 64 per source. */
    public static final HandshakeLimits DEFAULT = new HandshakeLimits(Duration.ofSeconds(5), 4096, 64);

    public HandshakeLimits {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new InvalidArgumentException("handshake timeout " + timeout + " must be positive (default 5 s)");
        }
        if (maxPending < 1) {
            throw new InvalidArgumentException("maxPending " + maxPending + " must be at least 1 (default 4096 handshakes per listener)");
        }
        if (maxPendingPerSource < 1 || maxPendingPerSource > maxPending) {
            throw new InvalidArgumentException("maxPendingPerSource " + maxPendingPerSource + " must be 1.." + maxPending
                    + " (at most maxPending; default 64 handshakes per source address)");
        }
    }

    public HandshakeLimits withTimeout(Duration t) {
        return new HandshakeLimits(t, maxPending, maxPendingPerSource);
    }

    public HandshakeLimits withMaxPending(int perListener, int perSource) {
        return new HandshakeLimits(timeout, perListener, perSource);
    }
}
