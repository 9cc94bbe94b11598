package dev.tandem.provider;

import dev.tandem.ras.ResourceSlot;

/**
 * One open resource of an adapter as the owner table sees it: its kind, number, name and owner. The
 * adapter keeps one per open PD, MR, MW, CQ, QP, SRQ and listener, for leak reports, for naming rogue
 * owners at reset, for dumps, and (mirrored into the process's RAS file) for {@code tandem stat --resources}.
 *
 * @param kind     PD, MR, MW, CQ, QP, SRQ or LISTENER
 * @param id       number within its kind (QP number, STag, or a per-adapter sequence)
 * @param name     {@code <adapter> <kind> <id>}, as in counter labels
 * @param owner    who created it
 * @param resource the resource itself
 * @param slot     its entry in the RAS file's owner table (freed when the resource closes)
 */
public record LiveResource(String kind, long id, String name, Owner owner, AutoCloseable resource, dev.tandem.ras.ResourceSlot slot) {

    /** One line of a leak or rogue-owner report. */
    public String describe() {
        return kind + " " + name + " created by " + owner;
    }
}
