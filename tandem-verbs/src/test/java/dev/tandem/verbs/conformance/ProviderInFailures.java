package dev.tandem.verbs.conformance;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Puts the provider's name in front of every failure of a conformance test, so that reports of
 * several providers (which share the suite's class names) say which provider failed.
 */
final class ProviderInFailures implements TestExecutionExceptionHandler, LifecycleMethodExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        throw named(context, throwable);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        throw named(context, throwable);
    }

    @Override
    public void handleAfterEachMethodExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        throw named(context, throwable);
    }

    private static Throwable named(ExtensionContext context, Throwable t) {
        Object instance = context.getTestInstance().orElse(null);
        if (!(instance instanceof ConformanceBase base) || base.providerNameOrNull() == null) {
            return t;
        }
        if (t instanceof org.opentest4j.TestAbortedException) {
            return t; // assumptions stay skips
        }
        String tag = "[" + base.providerNameOrNull() + "] ";
        String message = t instanceof AssertionError ? t.getMessage() : "unexpected " + t;
        AssertionError named = new AssertionError(tag + message, t);
        named.setStackTrace(t.getStackTrace());
        return named;
    }
}
