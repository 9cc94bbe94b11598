/** The {@code tandem} command line: an application, so it exports nothing; picocli reads its commands reflectively. */
module dev.tandem.tools {
    requires dev.tandem.verbs;
    requires dev.tandem.ras;
    requires dev.tandem.iwarp;
    requires dev.tandem.failover;
    requires info.picocli;
    requires java.management;
    requires jdk.management;

    opens dev.tandem.tools to info.picocli;
    opens dev.tandem.tools.demo to info.picocli;
    opens dev.tandem.tools.dump to info.picocli;
    opens dev.tandem.tools.lab to info.picocli;
    opens dev.tandem.tools.perf to info.picocli;
    opens dev.tandem.tools.ras to info.picocli;
}
