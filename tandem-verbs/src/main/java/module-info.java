/**
 * The RDMA verbs API every user and every upper layer codes against, and the seam that finds
 * providers: {@link dev.tandem.verbs.RdmaDevices} opens a device by name through the
 * {@link dev.tandem.verbs.RdmaProvider}s that modules provide.
 */
module dev.tandem.verbs {
    exports dev.tandem.verbs;

    uses dev.tandem.verbs.RdmaProvider;
}
