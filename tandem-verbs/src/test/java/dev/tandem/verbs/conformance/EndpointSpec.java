package dev.tandem.verbs.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionQueue;
import dev.tandem.verbs.ProtectionDomain;
import dev.tandem.verbs.QueuePairConfig;

import java.util.function.UnaryOperator;

/**
 * How to build one {@link Endpoint}: reuse a PD or CQ (null = make a new one), the size and
 * rights of its region, and changes to the default {@link QueuePairConfig#of QP config}.
 */
public record EndpointSpec(ProtectionDomain pd, CompletionQueue cq, long regionSize, int regionAccess,
                           UnaryOperator<QueuePairConfig> qpConfig) {
    /** Every right a test may need on the default region. */
    public static final int FULL_ACCESS = Access.LOCAL_WRITE | Access.REMOTE_WRITE | Access.REMOTE_READ | Access.MW_BIND;
    public static final long DEFAULT_REGION = 64 * 1024;
    public static final int CQ_DEPTH = 512;

    public static EndpointSpec defaults() {
        return new EndpointSpec(null, null, DEFAULT_REGION, FULL_ACCESS, c -> c);
    }

    public EndpointSpec withPd(ProtectionDomain p) {
        return new EndpointSpec(p, cq, regionSize, regionAccess, qpConfig);
    }

    public EndpointSpec withCq(CompletionQueue c) {
        return new EndpointSpec(pd, c, regionSize, regionAccess, qpConfig);
    }

    public EndpointSpec withRegion(long size, int access) {
        return new EndpointSpec(pd, cq, size, access, qpConfig);
    }

    public EndpointSpec withQp(UnaryOperator<QueuePairConfig> change) {
        return new EndpointSpec(pd, cq, regionSize, regionAccess, change);
    }
}
