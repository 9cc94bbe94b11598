package dev.tandem.verbs;

/**
 * The verbs' out-of-resources error ({@code ENOMEM} of {@code ibv_create_qp}, {@code ibv_reg_mr}): the
 * adapter has none left of what was asked for. Every one it advertises in {@link DeviceAttributes} is in
 * use, or the process cannot back one more. The message names the limit and its value; closing a resource
 * of that kind makes room for the next one.
 */
public class ResourceLimitException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final String limit;
    private final long value;

    /**
     * @param limit   the limit reached, as the user configures or reads it, e.g. {@code "DeviceAttributes.maxQueuePairs"}
     * @param value   its value
     * @param message what was refused and why, naming {@code limit} and {@code value}
     */
    public ResourceLimitException(String limit, long value, String message) {
        super(message);
        this.limit = limit;
        this.value = value;
    }

    public ResourceLimitException(String limit, long value, String message, Throwable cause) {
        super(message, cause);
        this.limit = limit;
        this.value = value;
    }

    /** The limit reached, e.g. {@code "DeviceAttributes.maxQueuePairs"}. */
    public String limit() {
        return limit;
    }

    /** The limit's value: how many may exist at once. */
    public long value() {
        return value;
    }
}
