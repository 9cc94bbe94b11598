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
    private PostChecks() {
    }

    /** Checks a send work request of QP {@code qpNumber} in {@code pd} with at most {@code maxSge} entries. */
    static void send(WorkRequest request, FailoverProtectionDomain pd, int maxSge, int qpNumber) {
        if ((request.flags() & ~WrFlags.ALL) != 0) {
            throw new InvalidArgumentException("work request flags 0x" + Integer.toHexString(request.flags()) + " contain unknown bits");
        }
        String what = "QP " + qpNumber + " " + request.getClass().getSimpleName() + " wrId " + request.wrId();
        switch (request) {
            case WorkRequest.RdmaRead read -> sgl(read.sgl(), pd, maxSge, Access.LOCAL_WRITE, "QP " + qpNumber + " RdmaRead sink wrId " + read.wrId());
            case WorkRequest.BindWindow bind -> {
                if (resolve(bind.region(), pd) == null) {
                    throw new LocalProtectionException(what + ": region " + bind.region() + " is not one of this QP's protection domain on "
                            + pd.failoverDevice().name());
                }
            }
            case WorkRequest.LocalInvalidate inv -> {
            }
            default -> sgl(request.sgl(), pd, maxSge, 0, what);
        }
        if (WrFlags.has(request.flags(), WrFlags.SOLICITED)
                && !(request instanceof WorkRequest.Send || request instanceof WorkRequest.SendWithInvalidate)) {
            throw new InvalidArgumentException(what + ": SOLICITED applies to Sends only");
        }
    }

    /** Checks a receive of {@code queue} ("QP 3", "shared receive queue") in {@code pd} with at most {@code maxSge} entries. */
    static void receive(ReceiveRequest request, FailoverProtectionDomain pd, int maxSge, String queue) {
        sgl(request.sgl(), pd, maxSge, Access.LOCAL_WRITE, queue + " receive wrId " + request.wrId());
    }

    private static void sgl(List<Sge> sgl, FailoverProtectionDomain pd, int maxSge, int access, String what) {
        if (sgl.size() > maxSge) {
            throw new InvalidArgumentException(what + " has " + sgl.size() + " SGEs; this queue allows at most " + maxSge);
        }
        for (int i = 0; i < sgl.size(); i++) {
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
            if (!Access.allows(mr.access(), access)) {
                throw new LocalProtectionException(what + " SGE " + i + ": region access " + Access.describe(mr.access()) + " lacks "
                        + Access.describe(access));
            }
        }
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
