package dev.tandem.provider;

import dev.tandem.verbs.QueuePairConfig;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A transport with no wire: it records what the core asked of it, so a test sees the core's half of
 * an adapter on its own. It has no queue pairs ({@link #createQueuePair} is refused).
 */
final class ScriptedTransport implements Transport {
    final List<String> calls = new CopyOnWriteArrayList<>();
    volatile boolean progressOnPoll;
    /** Work each progress round reports (the core re-polls the CQ when it is positive). */
    volatile int work;

    @Override
    public KitQueuePair createQueuePair(KitProtectionDomain pd, QueuePairConfig config, int qpNumber) {
        calls.add("createQueuePair " + qpNumber);
        throw new UnsupportedOperationException("this transport has no queue pairs");
    }

    @Override
    public boolean progressOnPoll() {
        return progressOnPoll;
    }

    @Override
    public void notePoll() {
        calls.add("notePoll");
    }

    @Override
    public int progress() {
        calls.add("progress");
        return work;
    }

    @Override
    public void pollerLeaving() {
        calls.add("pollerLeaving");
    }

    @Override
    public boolean holdProgress(long nanos) {
        calls.add("holdProgress");
        return true;
    }

    @Override
    public void releaseProgress() {
        calls.add("releaseProgress");
    }

    @Override
    public void adapterFailed(String cause, List<LiveResource> live) {
        calls.add("adapterFailed " + cause + " " + live.stream().map(LiveResource::kind).sorted().toList());
    }

    @Override
    public void restart() {
        calls.add("restart");
    }

    @Override
    public void stop(boolean quiesced) {
        calls.add("stop " + quiesced);
    }
}
