package dev.tandem.tools.perf;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The private data of a perf connection, as perftest exchanges its parameters and keys. The client
 * sends the run's parameters and its buffer's rkey; the server answers with its own rkey, how many
 * receives it keeps posted (the send_bw credit window) and, with a baseline, the port the baseline
 * connects to (TCP's listener, or the plain iWARP adapter's). An iWARP baseline's connection carries
 * the same hellos, with its own region's rkey.
 *
 * <pre>
 * client:  "TPRF" | ver | test | wait | flags(1=tcp baseline,2=sweep,4=crc,8=iwarp baseline) | size | iters | warmup | txDepth | rkey | area | duration
 * server:  "TPRS" | ver | flags(4=crc) | 0 | 0                                               | rkey | area | rxDepth | baselinePort
 * </pre>
 * All integers are 4-byte big-endian; {@code duration} is the seconds to measure, 0 in iteration
 * mode. A region holds two areas of {@code area} bytes (receive at 0, send at {@code area}) and
 * then the side's status block ({@code StatusBlock}: the progress word the peer's liveness probes
 * read, control words). Version 2 added the duration and the status block, version 3 the iWARP
 * baseline; both sides must run the same version.
 */
public final class Hello {
    static final int CLIENT_MAGIC = 0x54505246; // "TPRF"
    static final int SERVER_MAGIC = 0x54505253; // "TPRS"
    static final byte VERSION = 3;
    private static final int BASELINE_TCP = 1;
    private static final int SWEEP = 2;
    private static final int CRC = 4;
    private static final int BASELINE_IWARP = 8;

    private Hello() {
    }

    /** What the client sends. */
    public record Client(PerfTest test, WaitMode waitMode, Baseline baseline, boolean sweep, boolean crc, int size,
                         int iterations, int warmup, int txDepth, int rkey, int area, int durationSeconds) {
        public Client {
            if (test == null || waitMode == null || baseline == null) {
                throw new IllegalArgumentException("a hello needs its test, waiting mode and baseline, got " + test + ", " + waitMode
                        + ", " + baseline);
            }
        }

        public byte[] encode() {
            int baselineFlag = switch (baseline) {
                case NONE -> 0;
                case TCP -> BASELINE_TCP;
                case IWARP -> BASELINE_IWARP;
            };
            ByteBuffer b = ByteBuffer.allocate(36);
            b.putInt(CLIENT_MAGIC).put(VERSION).put((byte) test.ordinal()).put((byte) waitMode.ordinal())
                    .put((byte) (baselineFlag | (sweep ? SWEEP : 0) | (crc ? CRC : 0)))
                    .putInt(size).putInt(iterations).putInt(warmup).putInt(txDepth).putInt(rkey).putInt(area).putInt(durationSeconds);
            return b.array();
        }

        public static Client decode(byte[] data) {
            try {
                ByteBuffer b = ByteBuffer.wrap(data);
                expect(b.getInt(), CLIENT_MAGIC, b.get(), "client");
                PerfTest test = enumAt(PerfTest.values(), b.get(), "test");
                WaitMode wait = enumAt(WaitMode.values(), b.get(), "waiting mode");
                int flags = b.get();
                Baseline baseline = switch (flags & (BASELINE_TCP | BASELINE_IWARP)) {
                    case 0 -> Baseline.NONE;
                    case BASELINE_TCP -> Baseline.TCP;
                    case BASELINE_IWARP -> Baseline.IWARP;
                    default -> throw new PerfException("the client's hello asks for both a TCP and an iWARP baseline; a run has one");
                };
                return new Client(test, wait, baseline, (flags & SWEEP) != 0, (flags & CRC) != 0,
                        b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt());
            } catch (BufferUnderflowException e) {
                throw new PerfException("the client's private data is " + data.length + " bytes, too short for a tandem perf hello", e);
            }
        }

        /** The same hello for another region: an iWARP baseline's connection carries the run's hello with its own rkey. */
        public Client withRkey(int otherRkey) {
            return new Client(test, waitMode, baseline, sweep, crc, size, iterations, warmup, txDepth, otherRkey, area, durationSeconds);
        }

        /** The phases both sides run. */
        public PerfPlan plan() {
            return PerfPlan.of(size, iterations, warmup, sweep, durationSeconds);
        }
    }

    /** What the server answers; {@code baselinePort} is 0 without a baseline. */
    public record Server(boolean crc, int rkey, int area, int rxDepth, int baselinePort) {
        public byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(24);
            b.putInt(SERVER_MAGIC).put(VERSION).put((byte) (crc ? CRC : 0)).put((byte) 0).put((byte) 0)
                    .putInt(rkey).putInt(area).putInt(rxDepth).putInt(baselinePort);
            return b.array();
        }

        public static Server decode(byte[] data) {
            try {
                ByteBuffer b = ByteBuffer.wrap(data);
                expect(b.getInt(), SERVER_MAGIC, b.get(), "server");
                int flags = b.get();
                b.get();
                b.get();
                return new Server((flags & CRC) != 0, b.getInt(), b.getInt(), b.getInt(), b.getInt());
            } catch (BufferUnderflowException e) {
                throw new PerfException("the server's private data is " + data.length + " bytes, too short for a tandem perf hello", e);
            }
        }
    }

    private static void expect(int magic, int wanted, byte version, String who) {
        if (magic != wanted) {
            throw new PerfException(String.format("the %s's private data starts with 0x%08x, not a tandem perf hello (0x%08x); "
                    + "is the peer a tandem perf %s?", who, magic, wanted, who));
        }
        if (version != VERSION) {
            throw new PerfException("the " + who + " speaks tandem perf hello version " + version + ", this side version " + VERSION
                    + "; run the same tandem version on both sides");
        }
    }

    private static <E> E enumAt(E[] values, byte index, String what) {
        if (index < 0 || index >= values.length) {
            throw new PerfException("the client's hello names " + what + " #" + index + ", which this side does not know");
        }
        return values[index];
    }
}
