package dev.tandem.verbs;

/**
 * An asynchronous event.
 *
 * @param type     what happened
 * @param resource the resource it concerns (a QueuePair, CompletionQueue, SharedReceiveQueue or the device)
 * @param detail   human-readable cause, e.g. the Terminate that was received
 */
public record AsyncEvent(AsyncEventType type, Object resource, String detail) {
}
