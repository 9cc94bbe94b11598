package dev.tandem.verbs;

/**
 * Access rights of a memory region or window, as bit flags (combine with {@code |}).
 * Local read is always allowed, as in the verbs standard.
 */
public final class Access {
    /** The adapter may write into the region for local operations (receives, Read results). */
    public static final int LOCAL_WRITE = 1;
    /** A peer may RDMA Write into the region (and, on iWARP, RDMA Read results land with this right). */
    public static final int REMOTE_WRITE = 1 << 1;
    /** A peer may RDMA Read from the region. */
    public static final int REMOTE_READ = 1 << 2;
    /** A peer may perform atomic operations (RFC 7306) on the region. */
    public static final int REMOTE_ATOMIC = 1 << 3;
    /** Memory windows may be bound to the region. */
    public static final int MW_BIND = 1 << 4;
    /** The rights a memory window can grant. */
    public static final int REMOTE_RIGHTS = REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;
    /** Every defined flag. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND;

    private Access() {
    }

    /** Checks that {@code flags} holds only defined bits and the standard's combinations. */
    public static int validate(int flags) {
        if ((flags & ~ALL) != 0) {
            throw new InvalidArgumentException("access flags 0x" + Integer.toHexString(flags)
                    + " contain unknown bits 0x" + Integer.toHexString(flags & ~ALL)
                    + "; allowed: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND");
        }
        if ((flags & (REMOTE_WRITE | REMOTE_ATOMIC)) != 0 && (flags & LOCAL_WRITE) == 0) {
            throw new InvalidArgumentException("access flags " + describe(flags)
                    + " grant REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE; the verbs standard requires LOCAL_WRITE with them");
        }
        return flags;
    }

    /** True when every bit of {@code required} is in {@code granted}. */
    public static boolean allows(int granted, int required) {
        return (granted & required) == required;
    }

    /** Human-readable list of flags, e.g. {@code LOCAL_WRITE|REMOTE_READ}. */
    public static String describe(int flags) {
        if (flags == 0) {
            return "NONE";
        }
        StringBuilder sb = new StringBuilder();
        String[] names = {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND"};
        for (int i = 0; i < names.length; i++) {
            if ((flags & (1 << i)) != 0) {
                sb.append(sb.isEmpty() ? "" : "|").append(names[i]);
            }
        }
        if ((flags & ~ALL) != 0) {
            sb.append(sb.isEmpty() ? "" : "|").append("0x").append(Integer.toHexString(flags & ~ALL));
        }
        return sb.toString();
    }
}
