package dev.tandem.provider;

import dev.tandem.verbs.InvalidArgumentException;
import dev.tandem.verbs.InvalidStateException;
import dev.tandem.verbs.PeerIncarnation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NodeKeyTableTest {
    @Test
    void everyAdapterRegisteringInSameStagGetsOneValueThatNoOtherRegistrationHolds() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(1));
        int before = table.next(i -> false);
        List<Integer> seen = new ArrayList<>();
        int stag = table.sameStag(() -> {
            seen.add(table.next(i -> false));
            seen.add(table.next(i -> false));
        });
        assertThat(seen).containsExactly(stag, stag);
        assertThat(stag >>> 8).isNotEqualTo(before >>> 8);
        assertThat(table.heldIndices()).isEqualTo(2);
        int after = table.next(i -> false);
        assertThat(after >>> 8).isNotIn(stag >>> 8, before >>> 8);
    }

    @Test
    void anIndexIsFreeAgainOnlyWhenEveryAdapterReleasedIt() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(2));
        int stag = table.sameStag(() -> {
            table.next(i -> false);
            table.next(i -> false);
        });
        table.release(stag);
        assertThat(table.heldIndices()).isEqualTo(1);
        table.release(stag);
        assertThat(table.heldIndices()).isZero();
    }

    @Test
    void aSameStagThatNoAdapterTookGivesTheIndexBack() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(3));
        table.sameStag(() -> { });
        assertThat(table.heldIndices()).isZero();
        int stag = table.sameStag(() -> {
            int s = table.next(i -> false);
            table.release(s); // the adapter's registration failed after it drew the STag
        });
        assertThat(stag).isNotZero();
        assertThat(table.heldIndices()).isZero();
    }

    @Test
    void anAdapterThatHoldsThePinnedIndexAlreadyIsRefused() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(4));
        assertThatThrownBy(() -> table.sameStag(() -> table.next(i -> true)))
                .isInstanceOf(InvalidStateException.class)
                .hasMessageContaining("live on the asking adapter");
    }

    @Test
    void anOpenersSourceThatGivesAnIndexTheNodeHoldsIsRefused() {
        int[] given = {0x123456 << 8 | 1, 0x123456 << 8 | 2};
        int[] n = {0};
        NodeKeyTable table = new NodeKeyTable("n1", new dev.tandem.verbs.StagSource() {
            @Override
            public int next(java.util.function.IntPredicate indexLive) {
                return given[n[0]++];
            }

            @Override
            public void release(int stag) {
            }
        });
        assertThat(table.next(i -> false)).isEqualTo(given[0]);
        assertThatThrownBy(() -> table.next(i -> false)).isInstanceOf(InvalidStateException.class)
                .hasMessageContaining("live on an adapter of node n1");
    }

    @Test
    void aRestartedNodeDrawsAnotherKeyAndOtherStagsUnderTheSameName() {
        NodeKeyTable first = new NodeKeyTable("n1");
        NodeKeyTable second = new NodeKeyTable("n1");
        assertThat(first.incarnation()).isNotZero().isNotEqualTo(second.incarnation());
        Set<Integer> a = new HashSet<>();
        Set<Integer> b = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            a.add(first.next(x -> false));
            b.add(second.next(x -> false));
        }
        assertThat(a).doesNotContainAnyElementsOf(b);
    }

    @Test
    void aPeerThatPresentsANewKeyRetiresItsEarlierLifeForGood() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(5));
        PeerIncarnation old = table.admit("peer", 11);
        assertThat(table.admit("peer", 11)).isSameAs(old);
        assertThat(old.isCurrent()).isTrue();

        PeerIncarnation restarted = table.admit("peer", 22);
        assertThat(old.isCurrent()).as("the connection set up with the earlier life").isFalse();
        assertThat(restarted.isCurrent()).isTrue();
        assertThat(table.currentKeyOf("peer")).isEqualTo(22);

        assertThat(table.admit("peer", 11)).as("a replayed set-up with the earlier key").isNull();
        assertThat(table.refusedOldKeys()).isEqualTo(1);
        assertThat(restarted.isCurrent()).isTrue();
        assertThat(table.admit("other", 11)).as("another node may hold the same value").isNotNull();
    }

    @Test
    void badNamesAndKeysAreRefusedWithTheReason() {
        assertThatThrownBy(() -> new NodeKeyTable(" ")).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> new NodeKeyTable("x".repeat(65))).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("at most 64");
        NodeKeyTable table = new NodeKeyTable("n1");
        assertThatThrownBy(() -> table.admit("peer", 0)).isInstanceOf(InvalidArgumentException.class).hasMessageContaining("never 0");
    }

    @Test
    void aNameOfExactlyTheLimitInUtf8BytesIsTaken() {
        assertThat(new NodeKeyTable("x".repeat(NodeKeyTable.MAX_NAME_BYTES)).nodeName()).isEqualTo("x".repeat(64));
        assertThat(new NodeKeyTable("\u00e9".repeat(32)).nodeName()).as("32 two-byte characters").isEqualTo("\u00e9".repeat(32));
        assertThatThrownBy(() -> new NodeKeyTable("\u00e9".repeat(33))).isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("is 66 bytes of UTF-8; at most 64");
    }

    @Test
    void everyOneOfThePeersLastRetiredKeysIsRefused() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(6));
        for (long key = 1; key <= NodeKeyTable.RETIRED_KEPT + 1; key++) {
            assertThat(table.admit("peer", key)).as("life " + key).isNotNull();
        }
        assertThat(table.currentKeyOf("peer")).isEqualTo(NodeKeyTable.RETIRED_KEPT + 1);
        for (long key = 1; key <= NodeKeyTable.RETIRED_KEPT; key++) {
            assertThat(table.admit("peer", key)).as("retired life " + key + " of " + NodeKeyTable.RETIRED_KEPT + " kept").isNull();
        }
        assertThat(table.refusedOldKeys()).isEqualTo(NodeKeyTable.RETIRED_KEPT);
    }

    /** An opener's STag source that hands out fresh values and records what comes back. */
    private static final class RecordingSource implements dev.tandem.verbs.StagSource {
        final List<Integer> given = new ArrayList<>();
        final List<Integer> released = new ArrayList<>();

        @Override
        public int next(java.util.function.IntPredicate indexLive) {
            int stag = (0x100 + given.size()) << 8 | 7;
            given.add(stag);
            return stag;
        }

        @Override
        public void release(int stag) {
            released.add(stag);
        }
    }

    @Test
    void everyStagGoesBackOnceToTheSourceItCameFrom() {
        RecordingSource opener = new RecordingSource();
        NodeKeyTable table = new NodeKeyTable("n1", opener);

        int unused = table.sameStag(() -> { });
        assertThat(opener.released).as("a sameStag no adapter took").containsExactly(unused);

        int shared = table.sameStag(() -> table.next(i -> false));
        table.release(shared);
        assertThat(opener.released).as("an application region's STag, released by its last adapter").containsExactly(unused, shared);

        int internal = table.sameStag(() -> table.next(i -> false), true);
        assertThat(opener.given).as("a layer's own region draws from this incarnation's generator").doesNotContain(internal);
        table.release(internal);
        int internalUnused = table.sameStag(() -> { }, true);
        assertThat(opener.given).doesNotContain(internalUnused);
        assertThat(opener.released).as("a layer's own STags go back to its generator, not to the opener's source")
                .containsExactly(unused, shared);
        assertThat(table.heldIndices()).isZero();
    }

    @Test
    void againAnswersARegistrationWithAStagTheNodeHoldsAndOnlyThat() {
        NodeKeyTable table = new NodeKeyTable("n1", new Random(8));
        int stag = table.sameStag(() -> table.next(i -> false));
        List<Integer> seen = new ArrayList<>();

        table.again(stag, () -> seen.add(table.next(i -> false)));   // an adapter back from a reset registers again

        assertThat(seen).containsExactly(stag);
        int fresh = table.next(i -> false);
        assertThat(fresh >>> 8).as("outside again, a fresh index").isNotEqualTo(stag >>> 8);
        table.release(stag);
        assertThat(table.heldIndices()).as("the index is held while a registration under it lives").isEqualTo(2);
        table.release(stag);
        table.release(fresh);
        assertThat(table.heldIndices()).isZero();
        assertThatThrownBy(() -> table.again(stag, () -> { })).isInstanceOf(IllegalStateException.class)
                .hasMessage("STag " + dev.tandem.verbs.STag.format(stag) + " is not held on node n1");
        int other = table.sameStag(() -> table.next(i -> false));
        assertThatThrownBy(() -> table.sameStag(() -> table.again(other, () -> { }))).isInstanceOf(IllegalStateException.class)
                .hasMessage("again: another STag is pinned on this thread");
    }
}
