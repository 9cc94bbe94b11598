package dev.tandem.iwarp.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Decodes the recorded TCP byte stream that one side of an iWARP connection sent: the MPA Request
 * or Reply frame, then every FPDU to the end. For fixtures, tests and dump tools; the engine parses
 * its headers itself.
 *
 * <p>Checks are done in the order a receiver's layers would see them: MPA framing (a stream that
 * ends inside an FPDU is a lost connection, {@link TerminateCode#LLP_TCP}) and CRC, then DDP
 * (length, version, T bit, queue number), then RDMAP (version, opcode, Read Request and Terminate
 * header sizes). Each FPDU is {@link FpduDescriptor#fpduLength} bytes long; the pad content is
 * covered by the CRC and otherwise ignored, as RFC 5044 asks of receivers. The checks are stateless:
 * MSN order, MO continuity and STags are not judged. Markers are not supported (no implementation
 * negotiates them; Linux siw rejects them).
 */
public final class FpduDecoder {

    /** How the CRC field of each FPDU is treated. */
    public enum CrcMode {
        /** CRC not negotiated: the field is present but not checked. */
        NOT_USED,
        /** CRC in use: a mismatch raises {@link TerminateCode#LLP_CRC}. */
        VERIFY,
        /** CRC in use: a mismatch is recorded as {@link Fpdu.CrcStatus#INVALID} and decoding goes on. */
        REPORT
    }

    /**
     * A decoded stream.
     *
     * @param mpa       the MPA Request or Reply that opened the stream
     * @param mpaLength bytes of the MPA frame including its private data
     * @param crcMode   how the CRC fields were treated
     * @param fpdus     every FPDU in stream order
     * @param length    bytes consumed, which is the whole stream
     */
    public record Decoded(MpaFrame mpa, int mpaLength, CrcMode crcMode, List<Fpdu> fpdus, int length) {
        public Decoded {
            fpdus = List.copyOf(fpdus);
        }

        public SortedMap<Integer, Integer> opcodeCounts() {
            return FpduDecoder.opcodeCounts(fpdus);
        }

        public String summary() {
            return FpduDecoder.summary(fpdus);
        }
    }

    private FpduDecoder() {
    }

    /**
     * Decodes a stream, taking CRC use from the stream's own MPA frame: the C flag of a Reply is the
     * negotiated outcome, and a Request with C forces CRC. A Request without C cannot tell whether
     * the responder asked for CRC; use {@link #decode(byte[], boolean)} when the Reply is known.
     */
    public static Decoded decode(byte[] stream) {
        return decode(stream, decodeMpa(stream).crc() ? CrcMode.VERIFY : CrcMode.NOT_USED);
    }

    /** Decodes a stream whose negotiated CRC use is known, verifying every CRC when it is in use. */
    public static Decoded decode(byte[] stream, boolean crcInUse) {
        return decode(stream, crcInUse ? CrcMode.VERIFY : CrcMode.NOT_USED);
    }

    /**
     * Decodes a whole stream.
     *
     * @throws FpduFormatException at the first fault
     */
    public static Decoded decode(byte[] stream, CrcMode crcMode) {
        MpaFrame mpa = decodeMpa(stream);
        int mpaLength = MpaFrame.HEADER_LENGTH + mpa.privateData().length;
        List<Fpdu> fpdus = new ArrayList<>();
        int offset = mpaLength;
        while (offset < stream.length) {
            Fpdu f = decodeFpdu(stream, offset, stream.length, crcMode);
            fpdus.add(f);
            offset = f.end();
        }
        return new Decoded(mpa, mpaLength, crcMode, fpdus, offset);
    }

    /**
     * Decodes the MPA Request or Reply at the start of a stream (which one is told by its key).
     *
     * @throws FpduFormatException with {@link TerminateCode#LLP_INVALID_MPA} at offset 0
     */
    public static MpaFrame decodeMpa(byte[] stream) {
        byte[] header = Arrays.copyOf(stream, Math.min(stream.length, MpaFrame.HEADER_LENGTH));
        boolean reply = header.length >= MpaFrame.KEY_LENGTH
                && Arrays.equals(header, 0, MpaFrame.KEY_LENGTH, MpaFrame.REPLY_KEY, 0, MpaFrame.KEY_LENGTH);
        try {
            int pdLength = MpaFrame.checkHeader(header, reply);
            if (stream.length < MpaFrame.HEADER_LENGTH + pdLength) {
                throw new FpduFormatException(TerminateCode.LLP_INVALID_MPA, 0, "MPA frame announces " + pdLength
                        + " bytes of private data but the stream ends after " + (stream.length - MpaFrame.HEADER_LENGTH));
            }
            byte[] pd = Arrays.copyOfRange(stream, MpaFrame.HEADER_LENGTH, MpaFrame.HEADER_LENGTH + pdLength);
            MpaFrame frame = MpaFrame.decode(header, pd, reply);
            frame.enhancedParameters(); // an Enhanced frame too short for its IRD/ORD words is invalid
            return frame;
        } catch (MpaException e) {
            throw new FpduFormatException(TerminateCode.LLP_INVALID_MPA, 0, e.getMessage(), e);
        }
    }

    /**
     * Decodes the FPDU starting at {@code offset}; {@code limit} is where the recorded bytes end.
     *
     * @throws FpduFormatException naming the Terminate a receiver would send
     */
    public static Fpdu decodeFpdu(byte[] b, int offset, int limit, CrcMode crcMode) {
        int available = limit - offset;
        if (available < FpduDescriptor.LENGTH_SIZE) {
            throw new FpduFormatException(TerminateCode.LLP_TCP, offset,
                    "stream ends inside the ULPDU_LENGTH field (" + available + " of 2 bytes)");
        }
        FpduHeader h = new FpduHeader().wrap(ByteBuffer.wrap(b), offset);
        int ulpduLength = h.ulpduLength();
        int total = FpduDescriptor.fpduLength(ulpduLength);
        if (available < total) {
            throw new FpduFormatException(TerminateCode.LLP_TCP, offset,
                    "FPDU with ULPDU_LENGTH " + ulpduLength + " needs " + total + " bytes but the stream ends after " + available);
        }

        // MPA: CRC over ULPDU_LENGTH, ULPDU and pad, stored little-endian after the pad.
        int crcOffset = offset + FpduDescriptor.LENGTH_SIZE + ulpduLength + FpduDescriptor.padLength(ulpduLength);
        int wireCrc = (b[crcOffset] & 0xFF) | (b[crcOffset + 1] & 0xFF) << 8 | (b[crcOffset + 2] & 0xFF) << 16
                | (b[crcOffset + 3] & 0xFF) << 24;
        Fpdu.CrcStatus crcStatus = Fpdu.CrcStatus.NOT_CHECKED;
        if (crcMode != CrcMode.NOT_USED) {
            CRC32C crc = new CRC32C();
            crc.update(b, offset, crcOffset - offset);
            int computed = (int) crc.getValue();
            if (computed == wireCrc) {
                crcStatus = Fpdu.CrcStatus.VALID;
            } else if (crcMode == CrcMode.VERIFY) {
                throw new FpduFormatException(TerminateCode.LLP_CRC, offset,
                        String.format("CRC field 0x%08x does not match the computed CRC32C 0x%08x", wireCrc, computed));
            } else {
                crcStatus = Fpdu.CrcStatus.INVALID;
            }
        }

        // DDP. A ULPDU shorter than the smallest (tagged) DDP header is refused before its control
        // bytes are read, as the engine refuses it: it cannot be any DDP segment.
        if (ulpduLength < FpduDescriptor.TAGGED_HEADER_LENGTH) {
            throw new FpduFormatException(TerminateCode.DDP_CATASTROPHIC, offset,
                    "ULPDU_LENGTH " + ulpduLength + " is shorter than any DDP header (" + FpduDescriptor.TAGGED_HEADER_LENGTH
                            + " bytes tagged)");
        }
        boolean tagged = h.tagged();
        boolean last = h.last();
        int ddpVersion = h.ddpVersion();
        if (ddpVersion != FpduDescriptor.DDP_VERSION) {
            throw new FpduFormatException(tagged ? TerminateCode.DDP_TAGGED_INVALID_VERSION : TerminateCode.DDP_UNTAGGED_INVALID_VERSION,
                    offset, "DDP version " + ddpVersion + " is not " + FpduDescriptor.DDP_VERSION);
        }

        // RDMAP control byte (carried in DDP's RsvdULP bits, checked before the rest of the header as siw does).
        int rdmapVersion = h.rdmapVersion();
        if (rdmapVersion != FpduDescriptor.RDMAP_VERSION) {
            throw new FpduFormatException(TerminateCode.RDMAP_INVALID_VERSION, offset,
                    "RDMAP version " + rdmapVersion + " is not " + FpduDescriptor.RDMAP_VERSION);
        }
        int opcode = h.opcode();
        if (opcode > RdmapOpcode.MAX) {
            throw new FpduFormatException(TerminateCode.RDMAP_UNEXPECTED_OPCODE, offset, "RDMAP opcode " + opcode + " is unknown");
        }
        if (tagged != RdmapOpcode.isTagged(opcode)) {
            // Chelsio T4 answers a T bit that contradicts the opcode with a DDP catastrophic error.
            throw new FpduFormatException(TerminateCode.DDP_CATASTROPHIC, offset,
                    RdmapOpcode.name(opcode) + " arrived " + (tagged ? "tagged" : "untagged"));
        }
        int headerLength = FpduHeader.ddpHeaderLength(tagged);
        if (ulpduLength < headerLength) {
            throw new FpduFormatException(TerminateCode.DDP_CATASTROPHIC, offset,
                    "ULPDU_LENGTH " + ulpduLength + " is shorter than the " + headerLength + "-byte " + (tagged ? "tagged" : "untagged")
                            + " DDP header");
        }
        int stag = 0;
        long to = 0;
        int rsvdUlp = 0;
        int qn = 0;
        int msn = 0;
        int mo = 0;
        if (tagged) {
            stag = h.stag();
            to = h.to();
        } else {
            rsvdUlp = h.invalidateStag();
            qn = h.qn();
            msn = h.msn();
            mo = h.mo();
            int expectedQn = switch (opcode) {
                case RdmapOpcode.READ_REQUEST -> FpduDescriptor.QN_READ_REQUEST;
                case RdmapOpcode.TERMINATE -> FpduDescriptor.QN_TERMINATE;
                default -> FpduDescriptor.QN_SEND;
            };
            if (qn != expectedQn) {
                throw new FpduFormatException(TerminateCode.DDP_UNTAGGED_INVALID_QN, offset,
                        RdmapOpcode.name(opcode) + " on queue " + Integer.toUnsignedLong(qn) + ", expected queue " + expectedQn);
            }
        }
        int payloadOffset = offset + FpduDescriptor.LENGTH_SIZE + headerLength;
        int payloadLength = ulpduLength - headerLength;

        // RDMAP headers that follow the untagged DDP header.
        Fpdu.ReadRequest readRequest = null;
        Fpdu.Terminate terminate = null;
        if (opcode == RdmapOpcode.READ_REQUEST) {
            if (payloadLength < ReadRequestDescriptor.LENGTH) {
                throw new FpduFormatException(TerminateCode.RDMAP_CATASTROPHIC_STREAM, offset,
                        "Read Request carries " + payloadLength + " bytes, fewer than its " + ReadRequestDescriptor.LENGTH + "-byte header");
            }
            if (payloadLength > ReadRequestDescriptor.LENGTH) {
                throw new FpduFormatException(TerminateCode.DDP_UNTAGGED_TOO_LONG, offset,
                        "Read Request carries " + payloadLength + " bytes, more than its " + ReadRequestDescriptor.LENGTH + "-byte header");
            }
            readRequest = new Fpdu.ReadRequest(h.readSinkStag(), h.readSinkTo(), (int) h.readSize(), h.readSourceStag(), h.readSourceTo());
        } else if (opcode == RdmapOpcode.TERMINATE) {
            if (payloadLength < TerminateDescriptor.CONTROL_SIZE) {
                throw new FpduFormatException(TerminateCode.RDMAP_CATASTROPHIC_STREAM, offset,
                        "Terminate carries " + payloadLength + " bytes, fewer than its " + TerminateDescriptor.CONTROL_SIZE + "-byte control word");
            }
            terminate = Fpdu.Terminate.of(h.terminateControl());
        }
        return new Fpdu(offset, ulpduLength, tagged, last, ddpVersion, rdmapVersion, opcode, stag, to, rsvdUlp, qn, msn, mo,
                payloadOffset, payloadLength, wireCrc, crcStatus, readRequest, terminate);
    }

    /** FPDUs per RDMAP opcode, in opcode order. */
    public static SortedMap<Integer, Integer> opcodeCounts(List<Fpdu> fpdus) {
        SortedMap<Integer, Integer> counts = new TreeMap<>();
        for (Fpdu f : fpdus) {
            counts.merge(f.opcode(), 1, Integer::sum);
        }
        return Collections.unmodifiableSortedMap(counts);
    }

    /** Messages (FPDUs with the L bit) per RDMAP opcode, in opcode order. */
    public static SortedMap<Integer, Integer> messageCounts(List<Fpdu> fpdus) {
        SortedMap<Integer, Integer> counts = new TreeMap<>();
        for (Fpdu f : fpdus) {
            if (f.last()) {
                counts.merge(f.opcode(), 1, Integer::sum);
            }
        }
        return Collections.unmodifiableSortedMap(counts);
    }

    /** One line for humans, e.g. {@code "RDMA_WRITE 300 FPDUs (100 messages), SEND 2 FPDUs (2 messages)"}. */
    public static String summary(List<Fpdu> fpdus) {
        if (fpdus.isEmpty()) {
            return "no FPDUs";
        }
        SortedMap<Integer, Integer> messages = messageCounts(fpdus);
        StringJoiner sj = new StringJoiner(", ");
        opcodeCounts(fpdus).forEach((opcode, n) -> sj.add(RdmapOpcode.name(opcode) + " " + n + (n == 1 ? " FPDU" : " FPDUs") + " ("
                + messages.getOrDefault(opcode, 0) + (messages.getOrDefault(opcode, 0) == 1 ? " message)" : " messages)")));
        return sj.toString();
    }

}
