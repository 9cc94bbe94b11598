package dev.tandem.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class STagTest {
    @Test
    void indexIsTheHigh24BitsAndKeyTheLow8() {
        assertEquals(0x12345678, STag.of(0x123456, 0x78));
        assertEquals(0x123456, STag.index(0x12345678));
        assertEquals(0x78, STag.key(0x12345678));
        assertEquals(0, STag.of(0, 0));
    }

    @Test
    void theLargestStagRoundTripsThoughItIsANegativeInt() {
        int stag = STag.of(STag.MAX_INDEX, 255);
        assertEquals(-1, stag);
        assertEquals(STag.MAX_INDEX, STag.index(stag));
        assertEquals(255, STag.key(stag));
        assertEquals((1 << 24) - 1, STag.MAX_INDEX);
    }

    @Test
    void everyIndexAndKeyRoundTrips() {
        for (int index : new int[] {0, 1, 255, 256, 65535, 0x800000, STag.MAX_INDEX}) {
            for (int key = 0; key < 256; key++) {
                int stag = STag.of(index, key);
                assertEquals(index, STag.index(stag));
                assertEquals(key, STag.key(stag));
            }
        }
    }

    @Test
    void badIndexOrKeyIsRefusedNamingIt() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> STag.of(-1, 0));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> STag.of(STag.MAX_INDEX + 1, 0));
        assertTrue(e.getMessage().contains(String.valueOf(STag.MAX_INDEX + 1)), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> STag.of(5, 256));
        assertTrue(e.getMessage().contains("256"), e.getMessage());
        e = assertThrows(InvalidArgumentException.class, () -> STag.of(5, -2));
        assertTrue(e.getMessage().contains("-2"), e.getMessage());
    }

    @Test
    void formatShowsHexIndexAndKey() {
        assertEquals("0x12345678(index=1193046,key=120)", STag.format(0x12345678));
        assertEquals("0xffffffff(index=16777215,key=255)", STag.format(-1));
    }
}
