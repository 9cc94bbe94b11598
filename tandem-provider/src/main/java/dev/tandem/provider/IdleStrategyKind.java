package dev.tandem.provider;

/** What an engine thread does when a duty cycle found no work. */
public enum IdleStrategyKind {
    /** Spin: lowest latency, burns a core. */
    BUSY_SPIN,
    /** Spin a little, then yield, then park with exponential back-off up to 1 ms. */
    BACKOFF,
    /** Park 1 ms each time: least CPU, highest latency. */
    SLEEP
}
