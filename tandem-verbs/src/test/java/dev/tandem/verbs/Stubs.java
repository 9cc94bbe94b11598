package dev.tandem.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/** Minimal stand-ins for provider objects, enough to build value types without a provider. */
final class Stubs {
    private Stubs() {
    }

    static MemoryRegion region(long size) {
        MemorySegment segment = Arena.ofAuto().allocate(size);
        return new MemoryRegion() {
            @Override
            public ProtectionDomain pd() {
                return null;
            }

            @Override
            public MemorySegment segment() {
                return segment;
            }

            @Override
            public int access() {
                return Access.LOCAL_WRITE;
            }

            @Override
            public int lkey() {
                return 0x100;
            }

            @Override
            public int rkey() {
                return 0x100;
            }

            @Override
            public int reregister(int access) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean isValid() {
                return true;
            }

            @Override
            public void close() {
            }

            @Override
            public String toString() {
                return "stub-region";
            }
        };
    }

    static CompletionQueue cq() {
        return new CompletionQueue() {
            @Override
            public int depth() {
                return 1;
            }

            @Override
            public int poll(WorkCompletion[] out, int offset, int max) {
                return 0;
            }

            @Override
            public int await(WorkCompletion[] out, Duration timeout) {
                return 0;
            }

            @Override
            public boolean awaitEvent(boolean solicitedOnly, Duration timeout) {
                return false;
            }

            @Override
            public void requestNotification(boolean solicitedOnly) {
            }

            @Override
            public void close() {
            }
        };
    }

    static SharedReceiveQueue srq() {
        return new SharedReceiveQueue() {
            @Override
            public ProtectionDomain pd() {
                return null;
            }

            @Override
            public int maxWr() {
                return 1;
            }

            @Override
            public int maxSge() {
                return 1;
            }

            @Override
            public void postReceive(ReceiveRequest request) {
            }

            @Override
            public int posted() {
                return 0;
            }

            @Override
            public void armLimit(int limit) {
            }

            @Override
            public void close() {
            }
        };
    }

    static MemoryWindow window() {
        return new MemoryWindow() {
            @Override
            public ProtectionDomain pd() {
                return null;
            }

            @Override
            public int rkey() {
                return 0;
            }

            @Override
            public boolean isBound() {
                return false;
            }

            @Override
            public void close() {
            }
        };
    }
}
