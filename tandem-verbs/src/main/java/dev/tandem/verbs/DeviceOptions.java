package dev.tandem.verbs;

/**
 * What the opener of a device gives it besides its name: things a name cannot carry.
 *
 * @param stagSource where the device takes its STags from, or null for the device's own
 */
public record DeviceOptions(StagSource stagSource) {
    /** Nothing given: the device chooses everything itself. */
    public static final DeviceOptions DEFAULT = new DeviceOptions(null);

    /** These options with STags from {@code source} (for one STag per region on every adapter of a node). */
    public DeviceOptions withStagSource(StagSource source) {
        if (source == null) {
            throw new InvalidArgumentException("withStagSource: source is null; leave it out to let the device draw its own STags");
        }
        return new DeviceOptions(source);
    }
}
