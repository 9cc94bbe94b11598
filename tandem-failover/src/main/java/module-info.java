/**
 * Fail-over: {@code failover://IP+IP} devices for {@link dev.tandem.verbs.RdmaDevices}, one device over
 * several adapters of a node that hides adapter, link and switch failures from the application
 * ({@link dev.tandem.failover.FailoverDevice}).
 */
module dev.tandem.failover {
    requires transitive dev.tandem.provider;

    exports dev.tandem.failover;
    exports dev.tandem.failover.check;

    uses dev.tandem.verbs.RdmaProvider;

    provides dev.tandem.verbs.RdmaProvider with dev.tandem.failover.FailoverProvider;
}
