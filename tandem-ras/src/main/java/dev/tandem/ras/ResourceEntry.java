package dev.tandem.ras;

/**
 * One live resource as read from the resource table.
 *
 * @param type      short type code, e.g. {@code "QP"}, {@code "MR"}, {@code "LISTENER"}
 * @param id        the resource's number (QP number, STag, ...)
 * @param name      what a person calls it, e.g. {@code "iwarp0@127.0.1.1 qp 3"}
 * @param pid       owner process
 * @param thread    name of the thread that created it
 * @param createdMs creation time, epoch ms
 * @param callSite  the creating call site, e.g. {@code "com.acme.App.main(App.java:42)"} (may be empty)
 * @param detail    the owner's latest detail text, e.g. {@code "state RTS peer 127.0.1.2:4791"} (may be empty)
 */
public record ResourceEntry(String type, long id, String name, long pid, String thread, long createdMs, String callSite,
                            String detail) {
}
