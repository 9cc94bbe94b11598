package dev.tandem.verbs;

/**
 * A steering tag: the 32-bit handle of a memory region or window, a 24-bit index and an 8-bit key.
 * The adapter chooses both for a region (unpredictably, and never the STag of a region deregistered
 * recently); for a window the consumer chooses the key on each bind. The lkey and rkey of a region
 * are the same value.
 */
public final class STag {
    public static final int INDEX_BITS = 24;
    public static final int MAX_INDEX = (1 << INDEX_BITS) - 1;

    private STag() {
    }

    public static int of(int index, int key) {
        if (index < 0 || index > MAX_INDEX) {
            throw new InvalidArgumentException("STag index " + index + " is outside 0.." + MAX_INDEX);
        }
        if (key < 0 || key > 0xFF) {
            throw new InvalidArgumentException("STag key " + key + " is outside 0..255");
        }
        return (index << 8) | key;
    }

    public static int index(int stag) {
        return stag >>> 8;
    }

    public static int key(int stag) {
        return stag & 0xFF;
    }

    public static String format(int stag) {
        return String.format("0x%08x(index=%d,key=%d)", stag, index(stag), key(stag));
    }
}
