package dev.tandem.verbs;

/**
 * What the opener of a device gives it besides its name: things a name cannot carry.
 *
 * @param stagSource where the device takes its STags from, or null for the device's own
 * @param nodeKeys   the node key table of the node the device belongs to, or null for an adapter that
 *                   presents no incarnation to its peers and checks none
 */
public record DeviceOptions(StagSource stagSource, NodeKeys nodeKeys) {
    /** Nothing given: the device chooses everything itself. */
    public static final DeviceOptions DEFAULT = new DeviceOptions(null, null);

    /** These options with STags from {@code source} (for one STag per region on every adapter of a node). */
    public DeviceOptions withStagSource(StagSource source) {
        if (source == null) {
            throw new InvalidArgumentException("withStagSource: source is null; leave it out to let the device draw its own STags");
        }
        return new DeviceOptions(source, nodeKeys);
    }

    /** These options with the node key table {@code keys} (incarnation keys presented and checked at set-up and per frame). */
    public DeviceOptions withNodeKeys(NodeKeys keys) {
        if (keys == null) {
            throw new InvalidArgumentException("withNodeKeys: keys are null; leave them out for an adapter that checks no incarnations");
        }
        return new DeviceOptions(stagSource, keys);
    }
}
