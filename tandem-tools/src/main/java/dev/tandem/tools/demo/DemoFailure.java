package dev.tandem.tools.demo;

/** A demo step did not behave as expected; the message says what was expected and what happened. */
final class DemoFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DemoFailure(String message) {
        super(message);
    }

    static void check(boolean condition, String expected, Object actual) {
        if (!condition) {
            throw new DemoFailure("expected " + expected + ", got " + actual);
        }
    }
}
