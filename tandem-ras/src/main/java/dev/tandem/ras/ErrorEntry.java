package dev.tandem.ras;

/**
 * One distinct error as read from the error log.
 *
 * @param cause   what makes it distinct (normalised exception class, message and site, or a caller's key)
 * @param count   observations so far
 * @param firstMs first observation, epoch ms
 * @param lastMs  latest observation, epoch ms
 * @param text    the first observation's detail (e.g. its stack trace), possibly cut
 */
public record ErrorEntry(String cause, long count, long firstMs, long lastMs, String text) {
}
