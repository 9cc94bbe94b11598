package dev.tandem.verbs;

import org.junit.jupiter.api.Test;

import static dev.tandem.verbs.Access.ALL;
import static dev.tandem.verbs.Access.LOCAL_WRITE;
import static dev.tandem.verbs.Access.MW_BIND;
import static dev.tandem.verbs.Access.REMOTE_ATOMIC;
import static dev.tandem.verbs.Access.REMOTE_READ;
import static dev.tandem.verbs.Access.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AccessTest {
    @Test
    void flagsAreDistinctBits() {
        int[] flags = {LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND};
        int seen = 0;
        for (int f : flags) {
            assertEquals(1, Integer.bitCount(f), "one bit: " + f);
            assertEquals(0, seen & f, "distinct: " + f);
            seen |= f;
        }
        assertEquals(seen, ALL);
    }

    @Test
    void validCombinationsPassAndAreReturned() {
        for (int f : new int[] {0, LOCAL_WRITE, REMOTE_READ, MW_BIND, LOCAL_WRITE | REMOTE_WRITE, LOCAL_WRITE | REMOTE_ATOMIC,
                REMOTE_READ | MW_BIND, ALL}) {
            assertEquals(f, Access.validate(f), Access.describe(f));
        }
    }

    @Test
    void remoteWriteWithoutLocalWriteIsRefusedNamingTheFlags() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Access.validate(REMOTE_WRITE | REMOTE_READ));
        assertTrue(e.getMessage().contains("REMOTE_WRITE|REMOTE_READ"), e.getMessage());
        assertTrue(e.getMessage().contains("LOCAL_WRITE"), "says what is missing: " + e.getMessage());
    }

    @Test
    void remoteAtomicWithoutLocalWriteIsRefused() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Access.validate(REMOTE_ATOMIC));
        assertTrue(e.getMessage().contains("REMOTE_ATOMIC"), e.getMessage());
    }

    @Test
    void unknownBitsAreRefusedNamingThem() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Access.validate(LOCAL_WRITE | 0x40));
        assertTrue(e.getMessage().contains("0x40"), e.getMessage());
        assertTrue(e.getMessage().contains("0x41"), "names the whole value: " + e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> Access.validate(-1));
    }

    @Test
    void allowsNeedsEveryRequiredBit() {
        assertTrue(Access.allows(LOCAL_WRITE | REMOTE_READ, REMOTE_READ));
        assertTrue(Access.allows(LOCAL_WRITE, 0));
        assertFalse(Access.allows(REMOTE_READ, REMOTE_READ | REMOTE_WRITE));
        assertFalse(Access.allows(0, MW_BIND));
    }

    @Test
    void describeListsFlagsInOrder() {
        assertEquals("NONE", Access.describe(0));
        assertEquals("LOCAL_WRITE|REMOTE_READ", Access.describe(REMOTE_READ | LOCAL_WRITE));
        assertEquals("LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC|MW_BIND", Access.describe(ALL));
        assertEquals("MW_BIND|0x40", Access.describe(MW_BIND | 0x40));
        assertEquals("0x100", Access.describe(0x100));
    }
}
