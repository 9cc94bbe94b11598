package dev.tandem.iwarp.conformance;

import dev.tandem.verbs.Access;
import dev.tandem.verbs.CompletionOpcode;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.LocalProtectionException;
import dev.tandem.verbs.MemoryWindow;
import dev.tandem.verbs.QpState;
import dev.tandem.verbs.STag;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.conformance.ConformanceBase;
import dev.tandem.verbs.conformance.ConnectedPair;
import dev.tandem.verbs.conformance.ProviderFixture;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What closing (deallocating) a memory window does to it: its rkey stops working at once, even
 * while bound, and a closed window cannot be bound again. Written against the verbs, so every
 * provider should pass it; candidates for {@code MemoryWindowConformance}.
 */
class IwarpWindowLifecycleTest extends ConformanceBase {
    @Override
    protected ProviderFixture fixture() {
        return new IwarpFixture(true);
    }

    private MemoryWindow boundWindow(ConnectedPair pair, int key) {
        MemoryWindow w = closeAtEnd(pair.passive().pd.allocateMemoryWindow());
        pair.passive().qp.postSend(new WorkRequest.BindWindow(300 + key, w, pair.passive().region, 4096, 8192,
                Access.REMOTE_READ | Access.REMOTE_WRITE, key, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the bind"), 300 + key, CompletionStatus.SUCCESS,
                CompletionOpcode.BIND_WINDOW, "bind");
        return w;
    }

    @Test
    void closingABoundWindowRevokesItsRkeyForReads() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, 7);
        int rkey = w.rkey();
        w.close();
        assertFalse(w.isBound(), "a closed window is not bound");
        assertReadRefused(pair, 0, 64, rkey, "the rkey of a window closed while bound");
    }

    @Test
    void closingABoundWindowRevokesItsRkeyForWrites() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = boundWindow(pair, 8);
        int rkey = w.rkey();
        w.close();
        assertWriteRefused(pair, pair.passive().region, 0, rkey, "the rkey of a window closed while bound");
    }

    @Test
    void aClosedWindowCannotBeBound() {
        ConnectedPair pair = connectedPair();
        MemoryWindow w = closeAtEnd(pair.passive().pd.allocateMemoryWindow());
        w.close();
        pair.passive().qp.postSend(new WorkRequest.BindWindow(40, w, pair.passive().region, 0, 4096, Access.REMOTE_READ, 1, SIGNALED));
        assertCompletion(awaitCompletion(pair.passive().cq, "the bind of a closed window"), 40, CompletionStatus.MW_BIND_ERR,
                CompletionOpcode.BIND_WINDOW, "bind of a closed window");
        assertFalse(w.isBound(), "the closed window stays unbound");
        awaitState(pair.passive().qp, QpState.ERROR, "the QP whose bind failed");
    }

    @Test
    void bindingAWindowOfAnotherProtectionDomainIsRefusedNamingTheWindow() {
        ConnectedPair pair = connectedPair();
        MemoryWindow foreign = closeAtEnd(closeAtEnd(adapter(1).allocateProtectionDomain()).allocateMemoryWindow());
        LocalProtectionException e = assertThrows(LocalProtectionException.class, () -> pair.passive().qp.postSend(
                new WorkRequest.BindWindow(41, foreign, pair.passive().region, 0, 4096, Access.REMOTE_READ, 1, SIGNALED)),
                "a bind of a window of another PD");
        assertTrue(e.getMessage().contains(STag.format(foreign.rkey())) && e.getMessage().contains("unbound"),
                "the message names the window, its STag and that it is unbound: " + e.getMessage());
    }
}
