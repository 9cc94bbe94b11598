package dev.tandem.provider;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;

import java.util.List;

/** Post-time checks of scatter/gather lists: each failure names the entry and what was wrong. */
public final class Validation {
    private Validation() {
    }

    public static void checkReceive(ReceiveRequest request, KitProtectionDomain pd, int maxSge, String queue, int qpNumber) {
        if (request == null) {
            throw new InvalidArgumentException("postReceive: request is null");
        }
        checkSgl(request.sgl(), pd, maxSge, Access.LOCAL_WRITE, queue, qpNumber, "receive", request.wrId());
    }

    /**
     * Checks count, ownership, PD, bounds and rights of every entry; returns the total length. The
     * message parts are joined only when a check fails, so a passing check allocates nothing.
     */
    public static long checkSgl(List<Sge> sgl, KitProtectionDomain pd, int maxSge, int requiredAccess,
                         String queue, int qpNumber, String kind, long wrId) {
        int n = sgl.size();
        if (n > maxSge) {
            throw new InvalidArgumentException(what(queue, qpNumber, kind, wrId) + " has " + n + " SGEs; this queue allows at most " + maxSge);
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            Sge sge = sgl.get(i);
            MemoryRegion r = sge.region();
            KitMemoryRegion mr = pd.core().stags().resolve(r);
            if (mr == null) {
                throw new LocalProtectionException(what(queue, qpNumber, kind, wrId) + " SGE " + i + ": region " + r + " is not one of adapter "
                        + pd.core().name() + ": " + pd.core().stags().whyUnresolved(r));
            }
            if (mr.isClosed() || !mr.entry().valid) {
                throw new LocalProtectionException(what(queue, qpNumber, kind, wrId) + " SGE " + i + ": lkey " + STag.format(mr.lkey()) + " is not valid (region deregistered)");
            }
            if (mr.kitPd() != pd) {
                throw new LocalProtectionException(what(queue, qpNumber, kind, wrId) + " SGE " + i + ": lkey " + STag.format(mr.lkey())
                        + " belongs to another protection domain than the queue's");
            }
            if (sge.offset() + sge.length() > mr.length()) {
                throw new LocalProtectionException(what(queue, qpNumber, kind, wrId) + " SGE " + i + ": bytes " + sge.offset() + ".." + (sge.offset() + sge.length())
                        + " lie outside the region of " + mr.length() + " bytes");
            }
            if (!Access.allows(mr.access(), requiredAccess)) {
                throw new LocalProtectionException(what(queue, qpNumber, kind, wrId) + " SGE " + i + ": region access " + Access.describe(mr.access())
                        + " lacks " + Access.describe(requiredAccess));
            }
            total += sge.length();
        }
        return total;
    }

    public static String what(String queue, int qpNumber, String kind, long wrId) {
        return (qpNumber >= 0 ? queue + " " + qpNumber : queue) + " " + kind + " wrId " + wrId;
    }
}
