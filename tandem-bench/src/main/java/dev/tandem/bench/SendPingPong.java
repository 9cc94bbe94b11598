package dev.tandem.bench;

import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkCompletion;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.util.concurrent.TimeUnit;

/**
 * send_lat's ping-pong on a {@link LoopbackLink}: an 8-byte signalled Send from A, echoed by a Send
 * from B's echo thread {@code bench-echo}; both sides busy-poll their CQ. Close stops the echo thread
 * (and throws if it does not stop) and the link.
 */
final class SendPingPong implements AutoCloseable {
    private static final int SIZE = 8;
    private static final int RECEIVES = 64;

    final LoopbackLink link;
    private final WorkRequest ping;
    private final ReceiveRequest receiveA;
    private final WorkCompletion[] wc = WorkCompletion.array(16);
    private final Thread echo;
    private volatile boolean running = true;
    private volatile RuntimeException echoFailure;

    SendPingPong(boolean crc) throws Exception {
        link = new LoopbackLink(crc, 4096);
        ping = new WorkRequest.Send(1, new Sge(link.mrA, 0, SIZE), WrFlags.SIGNALED);
        receiveA = new ReceiveRequest(2, new Sge(link.mrA, 1024, 64));
        ReceiveRequest receiveB = new ReceiveRequest(3, new Sge(link.mrB, 1024, 64));
        WorkRequest pong = new WorkRequest.Send(4, new Sge(link.mrB, 0, SIZE), WrFlags.SIGNALED);
        for (int i = 0; i < RECEIVES; i++) {
            link.qpA.postReceive(receiveA);
            link.qpB.postReceive(receiveB);
        }
        echo = Thread.ofPlatform().daemon().name("bench-echo").start(() -> {
            WorkCompletion[] out = WorkCompletion.array(16);
            try {
                while (running) {
                    int n = link.cqB.poll(out);
                    for (int i = 0; i < n; i++) {
                        check(out[i]);
                        if (out[i].opcode() == CompletionOpcode.RECV) {
                            link.qpB.postReceive(receiveB);
                            link.qpB.postSend(pong);
                        }
                    }
                }
            } catch (RuntimeException e) {
                echoFailure = e;
            }
        });
    }

    private static void check(WorkCompletion c) {
        if (c.status() != CompletionStatus.SUCCESS) {
            throw new IllegalStateException("ping-pong completion failed: " + c);
        }
    }

    /** One Send and its echo (a full round trip); returns the completions polled on the way. */
    int roundTrip() {
        link.qpA.postSend(ping);
        int polled = 0;
        while (true) {
            int n = link.cqA.poll(wc);
            polled += n;
            for (int i = 0; i < n; i++) {
                check(wc[i]);
                if (wc[i].opcode() == CompletionOpcode.RECV) {
                    link.qpA.postReceive(receiveA);
                    return polled;
                }
            }
            if (n == 0 && echoFailure != null) {
                throw new IllegalStateException("the echo thread failed", echoFailure);
            }
        }
    }

    /** True while the echo thread runs. */
    boolean echoAlive() {
        return echo.isAlive();
    }

    @Override
    public void close() {
        running = false;
        try {
            echo.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        link.close();
        if (echo.isAlive()) {
            throw new IllegalStateException(echo.getName() + " did not stop within 5 s");
        }
    }
}
