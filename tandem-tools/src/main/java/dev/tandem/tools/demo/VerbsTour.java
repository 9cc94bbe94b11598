package dev.tandem.tools.demo;

import dev.tandem.iwarp.wire.TerminateCode;
import dev.tandem.tools.perf.AdapterOpener;
import dev.tandem.verbs.AdapterControl;
import dev.tandem.verbs.AsyncEvent;
import dev.tandem.verbs.AsyncEventType;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ConnectionRequest;
import dev.tandem.verbs.Listener;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The verbs part of the demo: adapter a (127.0.1.1) and adapter b (127.0.1.2) in this process,
 * connected by one RC queue pair. Each step prints what happened and throws {@link DemoFailure}
 * when something did not behave as the verbs promise.
 */
final class VerbsTour implements AutoCloseable {
    static final String A_IP = "127.0.1.1";
    static final String B_IP = "127.0.1.2";
    private static final int RECV_OFFSET = 0;
    private static final int WRITE_SOURCE = 4096;
    private static final int WRITE_TARGET = 8192;
    private static final int READ_SOURCE = 16384;
    private static final int READ_TARGET = 24576;
    private static final int BLOCK = 4096;

    private final PrintWriter out;
    private final AdapterOpener opener;
    private RdmaDevice a;
    private RdmaDevice b;
    private DemoSide sa;
    private DemoSide sb;
    private Listener listener;
    private int rkeyOfB;

    VerbsTour(PrintWriter out, AdapterOpener opener) {
        this.out = out;
        this.opener = opener;
    }

    void openAdapters() {
        a = opener.open(A_IP, true);
        b = opener.open(B_IP, true);
        say("a = " + a.name() + ", b = " + b.name() + "  (MPA CRC32C on; each adapter is an engine on its own IP)");
        sa = new DemoSide("a", a);
        sb = new DemoSide("b", b);
        say("each side: a protection domain, a 64 KiB region (LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ), a CQ, an RC queue pair");
    }

    void connect() {
        listener = b.listen(new InetSocketAddress(B_IP, 0), 4);
        // b keeps receives posted before it accepts: a Send that finds none would terminate the connection.
        sb.qp.postReceive(new ReceiveRequest(1, sb.sge(RECV_OFFSET, 256)));
        sb.qp.postReceive(new ReceiveRequest(2, sb.sge(RECV_OFFSET + 256, 256)));
        byte[] fromA = keyAndText(sa.mr.rkey(), DemoSide.REGION_BYTES, "hello from a");
        byte[] fromB = keyAndText(sb.mr.rkey(), DemoSide.REGION_BYTES, "hello from b");
        Acceptor acceptor = new Acceptor(listener, sb, fromB);
        acceptor.thread.start();
        byte[] reply;
        try {
            reply = sa.qp.connect(listener.localAddress(), fromA, DemoSide.WAIT);
        } catch (RuntimeException e) {
            try {
                acceptor.finish();
            } catch (RuntimeException f) {
                e.addSuppressed(f);
            }
            throw e;
        }
        acceptor.finish();
        ByteBuffer r = ByteBuffer.wrap(reply);
        rkeyOfB = r.getInt();
        int length = r.getInt();
        String textB = StandardCharsets.UTF_8.decode(r).toString();
        String textA = new String(acceptor.received, 8, acceptor.received.length - 8, StandardCharsets.UTF_8);
        say("listener on " + listener.localAddress() + "; a connects with 8 bytes of key + a greeting as private data");
        say("b got from a:  rkey " + STag.format(ByteBuffer.wrap(acceptor.received).getInt()) + ", \"" + textA + "\"");
        say("a got from b:  rkey " + STag.format(rkeyOfB) + ", " + length + " bytes, \"" + textB + "\"");
        DemoFailure.check(textA.equals("hello from a") && textB.equals("hello from b"), "both greetings intact", textA + " / " + textB);
        DemoFailure.check(rkeyOfB == sb.mr.rkey(), "b's rkey " + STag.format(sb.mr.rkey()), STag.format(rkeyOfB));
        DemoFailure.check(sa.qp.state() == QpState.RTS && sb.qp.state() == QpState.RTS, "both QPs in RTS", sa.qp.state() + " / " + sb.qp.state());
        say("both queue pairs are in RTS");
    }

    void sendReceive() {
        byte[] message = "Hello over iWARP: a Send lands in the receive b posted".getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(MemorySegment.ofArray(message), 0, sa.memory, 0, message.length);
        sa.qp.postSend(new WorkRequest.Send(10, sa.sge(0, message.length), WrFlags.SIGNALED));
        WorkCompletion sent = sa.awaitCompletion(10, "the Send");
        WorkCompletion got = sb.awaitCompletion(1, "the receive");
        say("a: " + sent);
        say("b: " + got);
        expectSuccess(sent, CompletionOpcode.SEND);
        expectSuccess(got, CompletionOpcode.RECV);
        DemoFailure.check(got.byteLength() == message.length, message.length + " bytes received", got.byteLength());
        byte[] arrived = sb.memory.asSlice(RECV_OFFSET, message.length).toArray(ValueLayout.JAVA_BYTE);
        DemoFailure.check(java.util.Arrays.equals(arrived, message), "the message's bytes in b's receive buffer",
                new String(arrived, StandardCharsets.UTF_8));
        say("b's buffer holds \"" + new String(arrived, StandardCharsets.UTF_8) + "\"");
    }

    void rdmaWrite() {
        fill(sa.memory, WRITE_SOURCE, BLOCK, 0x5A);
        sa.qp.postSend(new WorkRequest.RdmaWrite(20, sa.sge(WRITE_SOURCE, BLOCK), WRITE_TARGET, rkeyOfB, WrFlags.SIGNALED));
        // A Send after the Write: when b receives it, the Write's bytes are in place (RDMAP orders them).
        byte[] note = "write done".getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(MemorySegment.ofArray(note), 0, sa.memory, 0, note.length);
        sa.qp.postSend(new WorkRequest.Send(21, sa.sge(0, note.length), WrFlags.SIGNALED));
        WorkCompletion write = sa.awaitCompletion(20, "the RDMA Write");
        sa.awaitCompletion(21, "the Send after the Write");
        WorkCompletion note2 = sb.awaitCompletion(2, "the receive after the Write");
        say("a: " + write);
        expectSuccess(write, CompletionOpcode.RDMA_WRITE);
        expectSuccess(note2, CompletionOpcode.RECV);
        int bad = firstMismatch(sb.memory, WRITE_TARGET, BLOCK, 0x5A);
        DemoFailure.check(bad < 0, BLOCK + " written bytes at b+" + WRITE_TARGET, "a difference at byte " + bad);
        say(BLOCK + " bytes from a+" + WRITE_SOURCE + " are at b+" + WRITE_TARGET + " (a tagged offset into b's region); b's application posted nothing for it; verified");
    }

    void rdmaRead() {
        fill(sb.memory, READ_SOURCE, BLOCK, 0xC3);
        sa.qp.postSend(new WorkRequest.RdmaRead(30, sa.sge(READ_TARGET, BLOCK), READ_SOURCE, rkeyOfB, WrFlags.SIGNALED));
        WorkCompletion read = sa.awaitCompletion(30, "the RDMA Read");
        say("a: " + read);
        expectSuccess(read, CompletionOpcode.RDMA_READ);
        int bad = firstMismatch(sa.memory, READ_TARGET, BLOCK, 0xC3);
        DemoFailure.check(bad < 0, BLOCK + " bytes read into a+" + READ_TARGET, "a difference at byte " + bad);
        say(BLOCK + " bytes of b+" + READ_SOURCE + " read into a+" + READ_TARGET + "; verified");
    }

    void accessViolation() {
        int badKey = STag.of(STag.index(rkeyOfB), (STag.key(rkeyOfB) + 1) & 0xFF);
        say("a reads 64 bytes with rkey " + STag.format(badKey) + " (b's index, wrong key)");
        sa.qp.postSend(new WorkRequest.RdmaRead(40, sa.sge(0, 64), 0, badKey, WrFlags.SIGNALED));
        WorkCompletion c = sa.awaitCompletion(40, "the RDMA Read with a bad rkey");
        say("a: " + c);
        DemoFailure.check(c.status() == CompletionStatus.REM_ACCESS_ERR, "status REM_ACCESS_ERR", c.status());
        TerminateCode code = TerminateCode.fromBits(c.vendorError());
        DemoFailure.check(code != null, "a Terminate code in vendorError", String.format("0x%04x", c.vendorError()));
        say("b answered with a Terminate: " + code.describe() + ", layer " + code.layer());
        DemoFailure.check(code.isProtectionError(), "a protection error", code.describe());
        // The responder (b) raises the access error; the requester may raise its own event too.
        List<AsyncEvent> eventsB = eventsUntil(b, AsyncEventType.QP_ACCESS_ERROR, Duration.ofSeconds(2));
        boolean onB = eventsB.stream().anyMatch(e -> e.type() == AsyncEventType.QP_ACCESS_ERROR);
        List<AsyncEvent> eventsA = eventsUntil(a, AsyncEventType.QP_ACCESS_ERROR, onB ? Duration.ofMillis(200) : Duration.ofSeconds(2));
        for (AsyncEvent e : eventsA) {
            say("async event on a: " + e.type() + (e.detail() == null ? "" : " - " + e.detail()));
        }
        for (AsyncEvent e : eventsB) {
            say("async event on b: " + e.type() + (e.detail() == null ? "" : " - " + e.detail()));
        }
        boolean accessEvent = eventsA.stream().anyMatch(e -> e.type() == AsyncEventType.QP_ACCESS_ERROR)
                || eventsB.stream().anyMatch(e -> e.type() == AsyncEventType.QP_ACCESS_ERROR);
        DemoFailure.check(accessEvent, "a QP_ACCESS_ERROR async event", eventsA + " / " + eventsB);
        say("queue pairs now: a " + sa.qp.state() + ", b " + sb.qp.state());
        DemoFailure.check(sa.qp.state() == QpState.ERROR, "a's QP in ERROR", sa.qp.state());
        DemoFailure.check(sb.qp.state() == QpState.ERROR, "b's QP in ERROR", sb.qp.state());
        say("nothing outside b's registered, permitted range was touched; the connection is over, as the standard says");
    }

    /**
     * A fatal adapter error on a, as a PCI error raises on a hardware RNIC: a's QPs fail and flush, a
     * snapshot is dumped first, the owner (this tour) releases its resources when DEVICE_FATAL arrives,
     * and reset() brings the adapter back.
     */
    void adapterFault() {
        if (!(a instanceof AdapterControl ia)) {
            say("adapter a offers no fault injection; skipped");
            return;
        }
        dev.tandem.ras.RasFile ras = dev.tandem.ras.ProcessRas.current();
        if (ras != null) {
            say("this process reports into " + ras.path() + ": from another shell, tandem stat / errors / trace / dump --pid "
                    + ras.pid());
        }
        ia.injectFatalError("demo: simulated PCI error");
        List<AsyncEvent> events = eventsUntil(a, AsyncEventType.DEVICE_FATAL, Duration.ofSeconds(2));
        AsyncEvent fatal = events.stream().filter(e -> e.type() == AsyncEventType.DEVICE_FATAL).findFirst()
                .orElseThrow(() -> new DemoFailure("no DEVICE_FATAL event on a; saw " + events));
        say("a: " + fatal.type() + " - " + fatal.detail() + "; port " + a.portState() + ", QP " + sa.qp.state());
        ia.lastFatalDump().ifPresent(p -> say("state at the fault dumped to " + p + " (read it: tandem dump --decode FILE)"));
        sa.close();
        sa = null;
        say("a's owner released its resources; resetting a");
        dev.tandem.verbs.ResetReport report = ia.reset(Duration.ofSeconds(1));
        DemoFailure.check(a.portState() == dev.tandem.verbs.PortState.ACTIVE, "a ACTIVE after the reset", a.portState());
        DemoFailure.check(report.rogueResources().isEmpty(), "no rogue owners", report.rogueResources());
        say(String.format("a is usable again %.2f ms after the fault (the reset itself took %.2f ms)",
                report.faultToUsable().toNanos() / 1e6, report.resetDuration().toNanos() / 1e6));
    }

    /** The events an adapter raised, until one of {@code type} or until {@code limit} has passed. */
    private static List<AsyncEvent> eventsUntil(RdmaDevice device, AsyncEventType type, Duration limit) {
        List<AsyncEvent> events = new ArrayList<>();
        long deadline = System.nanoTime() + limit.toNanos();
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            AsyncEvent e = device.pollAsyncEvent(Duration.ofNanos(left));
            if (e == null) {
                break;
            }
            events.add(e);
            if (e.type() == type) {
                break;
            }
        }
        return events;
    }

    private void say(String line) {
        out.println("      " + line);
        out.flush();
    }

    private static void expectSuccess(WorkCompletion c, CompletionOpcode opcode) {
        DemoFailure.check(c.status() == CompletionStatus.SUCCESS && c.opcode() == opcode, opcode + " completion with SUCCESS", c);
    }

    private static byte[] keyAndText(int rkey, int length, String text) {
        byte[] t = text.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + t.length).putInt(rkey).putInt(length).put(t).array();
    }

    private static void fill(MemorySegment m, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            m.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (seed + i * 31));
        }
    }

    private static int firstMismatch(MemorySegment m, long offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, offset + i) != (byte) (seed + i * 31)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        List<AutoCloseable> all = new ArrayList<>();
        all.add(listener);
        all.add(sa);
        all.add(sb);
        all.add(a);
        all.add(b);
        RuntimeException first = null;
        for (AutoCloseable c : all) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new DemoFailure("closing " + c + ": " + e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** b's side of connection setup, on its own named thread: take the request, accept with b's private data. */
    private static final class Acceptor {
        private final Thread thread;
        private volatile byte[] received;
        private volatile RuntimeException failure;

        Acceptor(Listener listener, DemoSide b, byte[] reply) {
            this.thread = Thread.ofPlatform().name("tandem-demo-accept").daemon(true).unstarted(() -> {
                try {
                    ConnectionRequest request = listener.accept(DemoSide.WAIT);
                    received = request.privateData();
                    request.accept(b.qp, reply);
                } catch (RuntimeException e) {
                    failure = e;
                }
            });
        }

        void finish() {
            try {
                if (!thread.join(DemoSide.WAIT.multipliedBy(2))) {
                    throw new DemoFailure("b's accept did not finish within " + DemoSide.WAIT.multipliedBy(2).toSeconds() + " s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DemoFailure("interrupted while b accepted");
            }
            if (failure != null) {
                throw failure;
            }
        }
    }
}
