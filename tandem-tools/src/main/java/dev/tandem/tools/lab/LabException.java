package dev.tandem.tools.lab;

/**
 * The system refused or failed to do what a lab needs: an {@code ip} command that failed (the message
 * quotes it and its stderr), did not finish in time, a lab that exists already or does not exist, links
 * that did not settle. Bad input is an {@link IllegalArgumentException} instead.
 */
public final class LabException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LabException(String message) {
        super(message);
    }

    public LabException(String message, Throwable cause) {
        super(message, cause);
    }
}
