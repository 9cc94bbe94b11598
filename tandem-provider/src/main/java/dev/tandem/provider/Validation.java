package dev.tandem.provider;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.DeviceAttributes;
import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.QueuePairConfig;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.MemoryRegion;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.Sge;

import java.util.List;

/** Checks of what a consumer gives: QP and SRQ sizes at creation, scatter/gather lists at post; each failure names what was wrong. */
public final class Validation {
    private Validation() {
    }

    /**
     * Checks a QP's configuration against what the adapter offers: depths, SGE counts, inline size and
     * IRD/ORD.
     *
     * @throws InvalidArgumentException naming the first value over the adapter's maximum
     */
    public static void checkQueuePairConfig(QueuePairConfig config, DeviceAttributes attrs) {
        if (config.sendDepth() > attrs.maxQueuePairDepth() || config.receiveDepth() > attrs.maxQueuePairDepth()) {
            throw new InvalidArgumentException("queue depths " + config.sendDepth() + "/" + config.receiveDepth()
                    + " exceed the adapter's maximum of " + attrs.maxQueuePairDepth());
        }
        if (config.maxSendSge() > attrs.maxSge() || config.maxReceiveSge() > attrs.maxSge()) {
            throw new InvalidArgumentException("SGE limits " + config.maxSendSge() + "/" + config.maxReceiveSge()
                    + " exceed the adapter's maximum of " + attrs.maxSge());
        }
        if (config.maxInlineData() > attrs.maxInlineData()) {
            throw new InvalidArgumentException("maxInlineData " + config.maxInlineData() + " exceeds the adapter's maximum of " + attrs.maxInlineData());
        }
        if (config.ird() > attrs.maxIrd() || config.ord() > attrs.maxOrd()) {
            throw new InvalidArgumentException("IRD/ORD " + config.ird() + "/" + config.ord() + " exceed the adapter's maximum of "
                    + attrs.maxIrd() + "/" + attrs.maxOrd());
        }
    }

    /**
     * Checks the limit an SRQ is armed with: 1 up to its depth {@code maxWr}.
     *
     * @throws InvalidArgumentException naming the limit and the range
     */
    public static void checkSrqLimit(int limit, int maxWr) {
        if (limit <= 0 || limit > maxWr) {
            throw new InvalidArgumentException("SRQ limit " + limit + " must be within 1.." + maxWr);
        }
    }

    /**
     * Checks the size of a shared receive queue against what the adapter offers.
     *
     * @throws InvalidArgumentException naming the value outside its range
     */
    public static void checkSharedReceiveQueue(int maxWr, int maxSge, DeviceAttributes attrs) {
        if (maxWr <= 0 || maxWr > attrs.maxQueuePairDepth()) {
            throw new InvalidArgumentException("shared receive queue maxWr " + maxWr + " must be within 1.." + attrs.maxQueuePairDepth());
        }
        if (maxSge <= 0 || maxSge > attrs.maxSge()) {
            throw new InvalidArgumentException("shared receive queue maxSge " + maxSge + " must be within 1.." + attrs.maxSge());
        }
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
