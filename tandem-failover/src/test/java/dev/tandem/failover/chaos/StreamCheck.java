package dev.tandem.failover.chaos;

import java.util.function.BiFunction;

import static dev.tandem.failover.chaos.MessageDescriptor.ANSWERED_CRC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.ANSWERS_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.CRC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.FROM_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.HEADER_LENGTH;
import static dev.tandem.failover.chaos.MessageDescriptor.MAGIC;
import static dev.tandem.failover.chaos.MessageDescriptor.MAGIC_OFFSET;
import static dev.tandem.failover.chaos.MessageDescriptor.NUMBER_OFFSET;

/**
 * The receiver's check of one inbound stream: every message exactly once, in order (numbers
 * consecutive), of the right length, every byte as the traffic model says, its CRC32C right, the
 * solicited bit as posted, the Write it names holding its bytes, and a response answering its request.
 * One violation per message at most for its identity and bytes (the first that applies), so one bad
 * message does not read as many.
 */
final class StreamCheck {
    private final TrafficModel model;
    private final StreamState stream;
    private final Findings findings;
    private final String who;
    /** The landing slots of the Writes messages name: (offset, length) → the bytes there now. */
    private final BiFunction<Long, Integer, byte[]> landing;
    private final int landingSlots;
    private int next;
    private int received;

    StreamCheck(TrafficModel model, StreamState stream, Findings findings, String who, BiFunction<Long, Integer, byte[]> landing,
                int landingSlots) {
        this.model = model;
        this.stream = stream;
        this.findings = findings;
        this.who = who;
        this.landing = landing;
        this.landingSlots = landingSlots;
    }

    /** The next message number expected: every one before it was delivered or reported missing. */
    int next() {
        return next;
    }

    /** Receive completions that carried a message of this stream (good or bad). */
    int received() {
        return received;
    }

    /** Where the Write message {@code number} names lands in the receiver's landing region. */
    long landingOffset(int number) {
        return (long) (number % landingSlots) * model.maxWrite();
    }

    /**
     * Checks one received message: {@code got} holds its first bytes (up to the buffer's size),
     * {@code byteLength} is what its completion said, {@code solicited} its completion's solicited bit.
     */
    void accept(byte[] got, long byteLength, boolean solicited) {
        received++;
        String at = who + " " + stream.name() + ": ";
        if (got.length < HEADER_LENGTH || MessageDescriptor.getInt(got, MAGIC_OFFSET) != MAGIC) {
            findings.add(Check.CORRUPT, at + "a message of " + byteLength + " bytes with no valid header arrived where message "
                    + next + " was expected" + scribbled(got, stream.inlineSends.contains(next), "Send"));
            advance(next + 1); // taken for the message expected, so the next one is not reported lost as well
            return;
        }
        int connection = MessageDescriptor.connection(got);
        int from = got[FROM_OFFSET];
        int number = MessageDescriptor.getInt(got, NUMBER_OFFSET);
        if (connection != stream.connection || from != stream.from) {
            findings.add(Check.CROSSTALK, at + "message " + number + " of conn" + connection + " from " + from
                    + " arrived where message " + next + " was expected");
            return;
        }
        if (number < next) {
            findings.add(Check.DUPLICATED, at + "message " + number + " arrived again (or late): " + next + " was expected");
            return;
        }
        if (number > next) {
            findings.add(Check.LOST, at + "messages " + next + ".." + (number - 1) + " never arrived: message " + number
                    + " came instead");
        }
        TrafficModel.MessagePlan plan = model.plan(stream.connection, stream.from, number);
        byte[] want = model.message(plan);
        advance(number + 1);
        if (byteLength != want.length) {
            findings.add(Check.CORRUPT, at + "message " + number + " is " + byteLength + " bytes long, sent " + want.length);
            return;
        }
        if (model.server() != 0 && stream.from == model.server()
                && (MessageDescriptor.getInt(got, ANSWERS_OFFSET) != number
                    || MessageDescriptor.getInt(got, ANSWERED_CRC_OFFSET) != MessageDescriptor.getInt(want, ANSWERED_CRC_OFFSET))) {
            findings.add(Check.RESPONSE, at + "response " + number + " answers request " + MessageDescriptor.getInt(got, ANSWERS_OFFSET)
                    + " with CRC " + Integer.toHexString(MessageDescriptor.getInt(got, ANSWERED_CRC_OFFSET)) + ", its request's CRC is "
                    + Integer.toHexString(MessageDescriptor.getInt(want, ANSWERED_CRC_OFFSET)));
            return;
        }
        int carried = MessageDescriptor.getInt(got, CRC_OFFSET);
        int crc = MessageDescriptor.crcOf(got, got.length);
        int diff = firstDifference(got, want);
        if (diff >= 0 || carried != crc) {
            findings.add(Check.CORRUPT, at + "message " + number + " (" + want.length + " bytes): "
                    + (diff >= 0 ? "byte " + diff + " is " + (got[diff] & 0xFF) + ", sent " + (want[diff] & 0xFF) : "bytes as sent")
                    + (carried != crc ? "; its CRC32C does not match its bytes" : ""));
            return;
        }
        if (solicited != plan.solicited()) {
            findings.add(Check.COMPLETION, at + "message " + number + " was posted " + (plan.solicited() ? "" : "not ")
                    + "SOLICITED, its receive completion says " + (solicited ? "solicited" : "not solicited"));
        }
        if (plan.shape() == TrafficModel.Shape.NAMED_WRITE) {
            byte[] written = landing.apply(landingOffset(number), plan.writeLength());
            byte[] expected = model.writeBytes(plan);
            int d = firstDifference(written, expected);
            if (d >= 0) {
                findings.add(Check.WRITE, at + "the Write named by message " + number + " (" + expected.length + " bytes at offset "
                        + landingOffset(number) + ") holds byte " + (written[d] & 0xFF) + " at " + d + ", written " + (expected[d] & 0xFF)
                        + scribbled(written, stream.inlineWrites.contains(number), "Write"));
            }
        }
    }

    private void advance(int to) {
        next = to;
        stream.delivered = to;
    }

    /**
     * Says so when {@code b} is all the bytes a sender writes over an INLINE source once its post returned:
     * the device read the application's buffer after the post (of this request, posted INLINE, or of a
     * request re-sent after the buffer was reused).
     */
    static String scribbled(byte[] b, boolean postedInline, String what) {
        for (byte x : b) {
            if (x != SendSide.SCRIBBLE) {
                return "";
            }
        }
        return b.length == 0 ? "" : " (every byte is 0x5A, what the sender wrote over an INLINE source after postSend returned;"
                + " this " + what + " was posted " + (postedInline ? "INLINE: its payload was not copied at the post"
                : "from its buffer, which later held an INLINE source: it was sent again after the buffer was reused") + ")";
    }

    static int firstDifference(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        int m = java.util.Arrays.mismatch(a, 0, n, b, 0, n);
        if (m >= 0) {
            return m;
        }
        return a.length == b.length ? -1 : n;
    }
}
