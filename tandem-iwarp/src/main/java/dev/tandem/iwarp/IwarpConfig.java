package dev.tandem.iwarp;

import dev.tandem.provider.IdleStrategyKind;
import dev.tandem.provider.LeakMode;
import dev.tandem.provider.ThreadingMode;
import dev.tandem.verbs.InvalidArgumentException;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Settings of one software iWARP adapter.
 *
 * @param localAddress     the adapter's IP address (one adapter = one local address)
 * @param crc              ask for MPA CRC32C (RFC 5044: if either side asks, both use it)
 * @param threading        engine threading mode
 * @param idle             engine idle strategy
 * @param progressOnPoll   let a thread that polls an empty CQ drive the engine itself (lower latency,
 *                         no hand-off to the engine thread), as a posting thread transmits directly
 * @param maxUlpdu         largest ULPDU per FPDU; 0 derives it from the interface MTU (the TCP path)
 * @param handshakes       what a listener allows a client before its MPA Request is complete
 *                         (time, pending handshakes per listener and per source address)
 * @param leakMode         what closing the adapter does about resources still open on it
 * @param slowCycleNanos   an engine duty cycle that did work and took longer than this counts as slow
 *                         (counter {@code <engine thread> cycles over <threshold>}); default 1 ms
 */
public record IwarpConfig(InetAddress localAddress, boolean crc, ThreadingMode threading, IdleStrategyKind idle,
                          boolean progressOnPoll, int maxUlpdu, HandshakeLimits handshakes, LeakMode leakMode,
                          long slowCycleNanos) {
    /** Default of {@link #slowCycleNanos()}: 1 ms. */
    public static final long DEFAULT_SLOW_CYCLE_NANOS = 1_000_000;

    public IwarpConfig {
        if (localAddress == null) {
            throw new InvalidArgumentException("IwarpConfig localAddress is null; give the adapter's local IP (e.g. 127.0.1.1)");
        }
        if (threading == null || idle == null) {
            throw new InvalidArgumentException("IwarpConfig threading and idle must be set, got " + threading + " / " + idle);
        }
        if (maxUlpdu != 0 && (maxUlpdu < 64 || maxUlpdu > 0xFFFF)) {
            throw new InvalidArgumentException("maxUlpdu " + maxUlpdu + " must be 0 (derive from MTU) or 64..65535");
        }
        if (leakMode == null) {
            throw new InvalidArgumentException("IwarpConfig leakMode is null; give REPORT or STRICT");
        }
        if (slowCycleNanos <= 0) {
            throw new InvalidArgumentException("slowCycleNanos " + slowCycleNanos + " must be positive (default "
                    + DEFAULT_SLOW_CYCLE_NANOS + ", 1 ms)");
        }
        if (handshakes == null) {
            throw new InvalidArgumentException("IwarpConfig handshakes is null; give HandshakeLimits.DEFAULT or your own limits");
        }
    }

    /**
     * Defaults for the adapter at {@code ip}: CRC on, dedicated back-off engine thread, progress on poll,
     * {@link HandshakeLimits#DEFAULT}, leak mode from {@link LeakMode#fromSystemProperty()}.
     */
    public static IwarpConfig of(String ip) {
        try {
            return new IwarpConfig(InetAddress.getByName(ip), true, ThreadingMode.DEDICATED, IdleStrategyKind.BACKOFF, true, 0, HandshakeLimits.DEFAULT,
                    LeakMode.fromSystemProperty(), DEFAULT_SLOW_CYCLE_NANOS);
        } catch (UnknownHostException e) {
            throw new InvalidArgumentException("adapter address '" + ip + "' is not an IP address: " + e.getMessage());
        }
    }

    public IwarpConfig withCrc(boolean on) {
        return new IwarpConfig(localAddress, on, threading, idle, progressOnPoll, maxUlpdu, handshakes, leakMode, slowCycleNanos);
    }

    public IwarpConfig withThreading(ThreadingMode mode) {
        return new IwarpConfig(localAddress, crc, mode, idle, progressOnPoll, maxUlpdu, handshakes, leakMode, slowCycleNanos);
    }

    public IwarpConfig withIdle(IdleStrategyKind kind) {
        return new IwarpConfig(localAddress, crc, threading, kind, progressOnPoll, maxUlpdu, handshakes, leakMode, slowCycleNanos);
    }

    public IwarpConfig withProgressOnPoll(boolean on) {
        return new IwarpConfig(localAddress, crc, threading, idle, on, maxUlpdu, handshakes, leakMode, slowCycleNanos);
    }

    public IwarpConfig withMaxUlpdu(int bytes) {
        return new IwarpConfig(localAddress, crc, threading, idle, progressOnPoll, bytes, handshakes, leakMode, slowCycleNanos);
    }

    public IwarpConfig withHandshakeLimits(HandshakeLimits limits) {
        return new IwarpConfig(localAddress, crc, threading, idle, progressOnPoll, maxUlpdu, limits, leakMode, slowCycleNanos);
    }

    public IwarpConfig withLeakMode(LeakMode mode) {
        return new IwarpConfig(localAddress, crc, threading, idle, progressOnPoll, maxUlpdu, handshakes, mode, slowCycleNanos);
    }

    public IwarpConfig withSlowCycleNanos(long nanos) {
        return new IwarpConfig(localAddress, crc, threading, idle, progressOnPoll, maxUlpdu, handshakes, leakMode, nanos);
    }
}
