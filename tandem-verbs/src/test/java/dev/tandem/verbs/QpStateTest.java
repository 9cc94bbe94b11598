package dev.tandem.verbs;

import org.junit.jupiter.api.Test;

import static dev.tandem.verbs.QpState.ERROR;
import static dev.tandem.verbs.QpState.INIT;
import static dev.tandem.verbs.QpState.RESET;
import static dev.tandem.verbs.QpState.RTR;
import static dev.tandem.verbs.QpState.RTS;
import static dev.tandem.verbs.QpState.SQD;
import static dev.tandem.verbs.QpState.SQE;
import static org.junit.jupiter.api.Assertions.assertEquals;

class QpStateTest {
    /**
     * The consumer-requested transitions of the verbs standard. Rows: from; columns: to, in the
     * order RESET INIT RTR RTS SQD SQE ERROR. SQE is entered only by the adapter.
     */
    private static final String[] TABLE = {
            /* RESET */ "XX...." + "X",
            /* INIT  */ "XXX..." + "X",
            /* RTR   */ "X..X.." + "X",
            /* RTS   */ "X..XX." + "X",
            /* SQD   */ "X..XX." + "X",
            /* SQE   */ "X..X.." + "X",
            /* ERROR */ "X....." + "X",
    };

    @Test
    void canModifyToFollowsTheVerbsTransitionTable() {
        QpState[] s = QpState.values();
        assertEquals(7, s.length, "states: " + java.util.Arrays.toString(s));
        for (QpState from : s) {
            for (QpState to : s) {
                boolean expected = TABLE[from.ordinal()].charAt(to.ordinal()) == 'X';
                assertEquals(expected, from.canModifyTo(to), from + " -> " + to);
            }
        }
    }

    @Test
    void errorAndResetAreReachableFromEveryState() {
        for (QpState from : QpState.values()) {
            assertEquals(true, from.canModifyTo(ERROR), from + " -> ERROR");
            assertEquals(true, from.canModifyTo(RESET), from + " -> RESET");
            assertEquals(false, from.canModifyTo(SQE), from + " -> SQE (adapter-only)");
        }
    }

    @Test
    void onlyRtsAcceptsSends() {
        for (QpState s : QpState.values()) {
            assertEquals(s == RTS, s.acceptsSends(), s + ".acceptsSends()");
        }
    }

    @Test
    void receivesAreAcceptedFromInitOnUntilError() {
        assertEquals(false, RESET.acceptsReceives());
        assertEquals(true, INIT.acceptsReceives());
        assertEquals(true, RTR.acceptsReceives());
        assertEquals(true, RTS.acceptsReceives());
        assertEquals(true, SQD.acceptsReceives());
        assertEquals(true, SQE.acceptsReceives());
        assertEquals(false, ERROR.acceptsReceives());
    }
}
