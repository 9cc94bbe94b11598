/** JMH micro-benchmarks: open, because JMH's generated harness and runner reach the benchmarks reflectively. */
open module dev.tandem.bench {
    requires dev.tandem.iwarp;
    requires jmh.core;
    requires java.management;
}
