package dev.tandem.failover.check;

import java.lang.foreign.MemorySegment;

/**
 * The receiver's checks, apart from any queue pair so that tests can feed it made-up messages: each
 * data message must be intact (its length and CRC), arrive once and in order, and the block it
 * announces must be in its ring slot, intact, and that very block. What arrives once counts as
 * received; everything else is counted in {@link Findings}.
 */
final class StreamVerifier {
    private final StreamShape shape;
    private final MemorySegment ring;
    private final Findings findings;
    private final SequenceCheck sequence = new SequenceCheck();
    private long messages;
    private long bytes;
    private long blocks;

    /** Checks messages of {@code shape} whose blocks land in {@code ring} ({@code ringSlots x blockBytes} bytes). */
    StreamVerifier(StreamShape shape, MemorySegment ring, Findings findings) {
        if (ring.byteSize() < (long) shape.ringSlots() * shape.blockBytes()) {
            throw new IllegalArgumentException("ring of " + ring.byteSize() + " bytes is smaller than " + shape.ringSlots() + " slots of "
                    + shape.blockBytes() + " bytes");
        }
        this.shape = shape;
        this.ring = ring;
        this.findings = findings;
    }

    /** Checks the message a receive completion of {@code byteLength} bytes reported in {@code buffer}. */
    void accept(MemorySegment buffer, long byteLength) {
        if (!CheckedMessage.intact(buffer, byteLength)) {
            findings.checksumErrors++;
            findings.problem("a message of " + byteLength + " bytes is corrupt (its length or CRC32C does not match)");
            return;
        }
        if (CheckedMessage.kind(buffer) != CheckedMessage.KIND_DATA) {
            findings.checksumErrors++;
            findings.problem("a message of kind " + CheckedMessage.kind(buffer) + " arrived where data was due");
            return;
        }
        long seq = CheckedMessage.sequence(buffer);
        switch (sequence.observe(seq)) {
            case DUPLICATE -> {
                findings.problem("message " + seq + " arrived again");
                return;
            }
            case LATE -> findings.problem("message " + seq + " arrived after later ones");
            case IN_ORDER, AHEAD -> {
            }
        }
        messages++;
        bytes += byteLength;
        int slot = CheckedMessage.slot(buffer);
        if (slot != CheckedMessage.NO_SLOT) {
            checkBlock(seq, slot, CheckedMessage.value(buffer));
        }
    }

    private void checkBlock(long seq, int slot, long blockSeq) {
        if (slot < 0 || slot >= shape.ringSlots()) {
            findings.checksumErrors++;
            findings.problem("message " + seq + " announces block " + blockSeq + " in slot " + slot + ", outside the ring of "
                    + shape.ringSlots());
            return;
        }
        MemorySegment block = ring.asSlice((long) slot * shape.blockBytes(), shape.blockBytes());
        String which = "block " + blockSeq + " (announced by message " + seq + ", slot " + slot + ")";
        if (!CheckedBlock.intact(block, shape.blockBytes())) {
            if (CheckedBlock.empty(block)) {
                findings.lost++;
                findings.problem(which + " is not there: the slot was never written");
            } else {
                findings.checksumErrors++;
                findings.problem(which + " is corrupt (its length or CRC32C does not match)");
            }
            return;
        }
        long found = CheckedBlock.sequence(block);
        if (found == blockSeq) {
            blocks++;
            bytes += shape.blockBytes();
        } else if (found < blockSeq) {
            findings.lost++;
            findings.problem(which + " is not there: the slot still holds block " + found);
        } else {
            findings.reordered++;
            findings.problem(which + " was overwritten by block " + found + " before it was checked");
        }
    }

    /** Data messages that arrived once. */
    long messages() {
        return messages;
    }

    /** Bytes of the messages that arrived once and of the blocks verified. */
    long bytes() {
        return bytes;
    }

    /** Blocks found where announced, intact. */
    long blocks() {
        return blocks;
    }

    SequenceCheck sequence() {
        return sequence;
    }
}
