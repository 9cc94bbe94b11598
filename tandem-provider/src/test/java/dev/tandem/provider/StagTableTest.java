package dev.tandem.provider;

import dev.tandem.verbs.QueueFullException;
import dev.tandem.verbs.STag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The adapter's STag table: any 24-bit index, lookups by index, the key left to the caller, a full table refused. */
class StagTableTest {
    private static StagTable table(int capacity) {
        return new StagTable(capacity, new PermutedStagSource(new Random(7)));
    }

    @Test
    void aFullTableRefusesWithTheAdaptersLimitAndReissueStillWorks() {
        StagTable t = table(3);
        StagEntry a = t.allocate(null, false);
        t.allocate(null, false);
        t.allocate(null, true);
        assertThatThrownBy(() -> t.allocate(null, false)).isInstanceOf(QueueFullException.class)
                .hasMessage("all 3 STag indices of the adapter are in use; deregister regions or windows first");
        StagEntry b = t.reissue(a);
        assertThat(b.stag()).as("reregister of a region in a full table").isNotEqualTo(a.stag());
        assertThat(a.valid).as("the replaced entry").isFalse();
        assertThat(t.lookup(a.stag())).as("the replaced STag").isNull();
        assertThat(t.lookup(b.stag())).isSameAs(b);
        t.release(b);
        assertThat(t.live()).isEqualTo(2);
        assertThat(t.allocate(null, false).stag()).as("room again after a release").isNotZero();
    }

    @Test
    void lookupFindsTheIndexAndLeavesTheKeyToTheCaller() {
        StagTable t = table(16);
        StagEntry e = t.allocate(null, false);
        int wrongKey = STag.of(e.index, (e.key + 1) & 0xFF);
        StagEntry found = t.lookup(wrongKey);
        assertThat(found).as("the live entry at the index of " + STag.format(wrongKey)).isSameAs(e);
        assertThat(found.key).as("its key, which the receiver compares with the STag's").isNotEqualTo(STag.key(wrongKey));
        assertThat(t.lookup(0)).as("STag 0").isNull();
        t.release(e);
        assertThat(t.lookup(e.stag())).as("a released STag").isNull();
        assertThat(e.valid).isFalse();
    }

    /** Sequential indices, as a source other than the default may choose, through releases and rebuilds. */
    @Test
    void chosenIndicesSurviveChurnAndRebuilds() {
        StagTable t = table(1000);
        List<StagEntry> live = new ArrayList<>();
        for (int i = 1; i <= 1000; i++) {
            live.add(t.insert(STag.of(i, i & 0xFF), null, false));
        }
        assertThatThrownBy(() -> t.insert(STag.of(5, 0), null, false)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("index 5");
        int next = 1001;
        for (int round = 0; round < 20_000; round++) {
            StagEntry gone = live.remove((round * 7919) % live.size());
            t.release(gone);
            assertThat(t.lookup(gone.stag())).isNull();
            live.add(t.insert(STag.of(next, 0x5A), null, true));
            next = next == STag.MAX_INDEX ? 1 : next + 1;
        }
        for (StagEntry e : live) {
            assertThat(t.lookup(e.stag())).as("live index " + e.index).isSameAs(e);
        }
        assertThat(t.lookup(STag.of(next, 0x5A))).as("an index never inserted").isNull();
        assertThat(t.live()).isEqualTo(1000);
    }

    @Test
    void anStagANodeWideSourceChoseIsRefusedInAFullTable() {
        StagTable t = table(2);
        t.insert(STag.of(5, 1), null, false);
        t.insert(STag.of(6, 1), null, false);
        assertThatThrownBy(() -> t.insert(STag.of(7, 1), null, false)).isInstanceOf(QueueFullException.class);
        assertThat(t.lookup(STag.of(7, 1))).as("nothing placed for the refused STag").isNull();
        assertThat(t.live()).isEqualTo(2);
    }

    @Test
    void theCapacityIsBetweenOneAndFourMebiEntries() {
        assertThat(table(1).capacity()).isEqualTo(1);
        assertThat(table(1 << 22).capacity()).isEqualTo(1 << 22);
        assertThatThrownBy(() -> table(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside 1..4194304");
        assertThatThrownBy(() -> table((1 << 22) + 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
