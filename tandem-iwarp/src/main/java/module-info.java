/**
 * The software iWARP adapter: {@code iwarp://IP} devices for {@link dev.tandem.verbs.RdmaDevices}, the
 * device's own API ({@link dev.tandem.iwarp.IwarpDevice}, {@link dev.tandem.iwarp.IwarpConfig}) and the
 * wire formats (MPA, DDP, RDMAP, Terminate codes) for tools that read captures. The engine stays inside.
 */
module dev.tandem.iwarp {
    requires transitive dev.tandem.provider;

    exports dev.tandem.iwarp;
    exports dev.tandem.iwarp.wire;

    provides dev.tandem.verbs.RdmaProvider with dev.tandem.iwarp.IwarpProvider;
}
