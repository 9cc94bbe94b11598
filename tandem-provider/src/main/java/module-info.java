/**
 * The provider kit: the transport-neutral half of an RDMA device ({@link dev.tandem.provider.DeviceCore}
 * and the resources it holds) and the SPI a transport implements ({@link dev.tandem.provider.Transport}).
 * Exported to providers; applications code against the verbs alone.
 */
module dev.tandem.provider {
    requires transitive dev.tandem.verbs;
    requires transitive dev.tandem.ras;

    exports dev.tandem.provider;
}
