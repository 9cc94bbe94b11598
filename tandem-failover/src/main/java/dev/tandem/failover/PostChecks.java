package dev.tandem.failover;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;

import java.util.List;

/**
 * What a post must pass before the fail-over layer takes it, checked where the application posts: a
 * request may be logged and posted on an adapter only later (during a move, or before its path is set
 * up), and a refused post must be refused at once, with nothing logged. The same checks as an adapter's:
 * flags, scatter/gather entries (region of this protection domain, or its twin under the same lkey over
 * the same memory, valid, in bounds, with the rights the operation needs), and what applies to which
 * request.
 */
final class PostChecks {
    /** What {@link #badEntry} finds: every entry passes, or there are too many. */
    private static final int OK = -2;
    private static final int TOO_MANY = -1;

    private PostChecks() {
    }

    /** Checks a send work request of QP {@code qpNumber} in {@code pd} with at most {@code maxSge} entries. */
    static void send(WorkRequest request, FailoverProtectionDomain pd, int maxSge, int qpNumber) {
        if ((request.flags() & ~WrFlags.ALL) != 0) {
            throw new InvalidArgumentException("work request flags 0x" + Integer.toHexString(request.flags()) + " contain unknown bits");
        }
        switch (request) {
            case WorkRequest.RdmaRead read -> {
                int bad = badEntry(read.sgl(), pd, maxSge, Access.LOCAL_WRITE);
                if (bad != OK) {
                    refuse(read.sgl(), pd, maxSge, Access.LOCAL_WRITE, bad, "QP " + qpNumber + " RdmaRead sink wrId " + read.wrId());
                }
            }
            case WorkRequest.BindWindow bind -> {
                if (resolve(bind.region(), pd) == null) {
                    throw new LocalProtectionException(what(request, qpNumber) + ": region " + bind.region()
                            + " is not one of this QP's protection domain on " + pd.failoverDevice().name());
                }
            }
            case WorkRequest.LocalInvalidate inv -> {
            }
            default -> {
                int bad = badEntry(request.sgl(), pd, maxSge, 0);
                if (bad != OK) {
                    refuse(request.sgl(), pd, maxSge, 0, bad, what(request, qpNumber));
                }
            }
        }
        if (WrFlags.has(request.flags(), WrFlags.SOLICITED)
                && !(request instanceof WorkRequest.Send || request instanceof WorkRequest.SendWithInvalidate)) {
            throw new InvalidArgumentException(what(request, qpNumber) + ": SOLICITED applies to Sends only");
        }
    }

    /** Checks a receive of {@code queue} ("QP", "shared receive queue") {@code number} in {@code pd} with at most {@code maxSge} entries. */
    static void receive(ReceiveRequest request, FailoverProtectionDomain pd, int maxSge, String queue, int number) {
        int bad = badEntry(request.sgl(), pd, maxSge, Access.LOCAL_WRITE);
        if (bad != OK) {
            refuse(request.sgl(), pd, maxSge, Access.LOCAL_WRITE, bad, queue + (number >= 0 ? " " + number : "") + " receive wrId " + request.wrId());
        }
    }

    /** "QP 3 Send wrId 7": made only for a refusal (a post that passes builds no string). */
    private static String what(WorkRequest request, int qpNumber) {
        return "QP " + qpNumber + " " + request.getClass().getSimpleName() + " wrId " + request.wrId();
    }

    /** The first entry that fails its check, {@link #TOO_MANY} when there are too many, {@link #OK} when all pass. */
    private static int badEntry(List<Sge> sgl, FailoverProtectionDomain pd, int maxSge, int access) {
        if (sgl.size() > maxSge) {
            return TOO_MANY;
        }
        for (int i = 0; i < sgl.size(); i++) {
            Sge sge = sgl.get(i);
            FailoverMemoryRegion mr = resolve(sge.region(), pd);
            if (mr == null || !mr.isValid() || sge.offset() + sge.length() > mr.length() || !Access.allows(mr.access(), access)) {
                return i;
            }
        }
        return OK;
    }

    /** Throws what is wrong with entry {@code i} of {@code sgl} (or its size), for the post {@code what}. */
    private static void refuse(List<Sge> sgl, FailoverProtectionDomain pd, int maxSge, int access, int i, String what) {
        if (i == TOO_MANY) {
            throw new InvalidArgumentException(what + " has " + sgl.size() + " SGEs; this queue allows at most " + maxSge);
        }
        Sge sge = sgl.get(i);
        MemoryRegion r = sge.region();
        FailoverMemoryRegion mr = resolve(r, pd);
        if (mr == null) {
            if (r instanceof FailoverMemoryRegion other && other.failoverDevice() == pd.failoverDevice()) {
                throw new LocalProtectionException(what + " SGE " + i + ": lkey " + STag.format(r.lkey())
                        + " belongs to another protection domain than the queue's");
            }
            throw new LocalProtectionException(what + " SGE " + i + ": region " + r + " (lkey " + STag.format(r.lkey())
                    + ") is not one of device " + pd.failoverDevice().name() + (pd.holdsLkey(r.lkey())
                    ? ", where that lkey names other memory" : ", which has no region under that lkey"));
        }
        if (!mr.isValid()) {
            throw new LocalProtectionException(what + " SGE " + i + ": lkey " + STag.format(mr.lkey()) + " is not valid (region deregistered)");
        }
        if (sge.offset() + sge.length() > mr.length()) {
            throw new LocalProtectionException(what + " SGE " + i + ": bytes " + sge.offset() + ".." + (sge.offset() + sge.length())
                    + " lie outside the region of " + mr.length() + " bytes");
        }
        throw new LocalProtectionException(what + " SGE " + i + ": region access " + Access.describe(mr.access()) + " lacks "
                + Access.describe(access));
    }

    /** The region of {@code pd} that {@code r} names: itself, or this domain's twin under the same lkey over the same memory; else null. */
    private static FailoverMemoryRegion resolve(MemoryRegion r, FailoverProtectionDomain pd) {
        if (r instanceof FailoverMemoryRegion f && f.pd() == pd) {
            return f;
        }
        if (r instanceof FailoverMemoryRegion f && f.failoverDevice() == pd.failoverDevice()) {
            return null; // another domain of this device
        }
        return pd.twinOf(r);
    }
}
