package dev.tandem.tools.perf;

import dev.tandem.tools.Adapters;
import dev.tandem.verbs.RdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code tandem perf TEST}: perftest's benchmarks over Tandem, next to a TCP baseline. */
@Command(name = "perf", sortOptions = false,
        description = {
                "perftest-style benchmarks over Tandem, next to a baseline: TCP, or the plain iWARP adapters under a fail-over device.",
                "The tests of ib_write_bw, ib_write_lat, ib_send_bw, ib_send_lat and ib_read_lat, with their options.",
                "Without --server or --connect both sides run here, on adapters 127.0.1.1 and 127.0.1.2."},
        footer = {"",
                "Bandwidth tests print: #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps] (MB = 2^20 bytes).",
                "Latency tests print: #bytes #iterations t_min t_max t_typical(median) t_avg t_stdev 99%% 99.9%% [usec];",
                "write_lat and send_lat report half a round trip, read_lat the whole Read.",
                "With -D: #iterations is what the time measured, BW peak is n/a, latency percentiles come from a histogram (within 0.4%%).",
                "A --server takes every parameter from its client."})
public final class PerfCommand implements Callable<Integer> {
    private final AdapterOpener opener;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TEST", converter = TestConverter.class,
            description = "write_bw, write_lat, send_bw, send_lat or read_lat")
    PerfTest test;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES", description = "message size (default 65536 for bw, 2 for lat)")
    Integer size;

    @Option(names = {"-n", "--iters"}, paramLabel = "N", description = "measured iterations (default 5000 for write_bw, else 1000)")
    Integer iterations;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS",
            description = "measure for SECONDS instead of a count, after a 2 s warm-up (or --warmup N iterations); excludes -n and -a")
    Integer duration;

    @Option(names = {"-t", "--tx-depth"}, paramLabel = "N", description = "operations in flight in bw tests (default ${DEFAULT-VALUE})")
    int txDepth = PerfSettings.DEFAULT_TX_DEPTH;

    @Option(names = {"-a", "--all"}, description = "sweep sizes 2..8388608 (powers of two); each size measures at most 256 MiB")
    boolean all;

    @Option(names = "--crc", paramLabel = "on|off", description = "MPA CRC32C (default on)")
    String crc = "on";

    @Option(names = "--engine", paramLabel = "dedicated|shared",
            description = "engine threads: one per adapter (default) or one shared by both adapters of this process")
    String engine = "dedicated";

    @Option(names = "--device", paramLabel = "iwarp|failover",
            description = {"the device the Tandem side runs on: an iWARP adapter (default), or a fail-over device over two",
                    "(127.0.1.1 with 127.0.2.1, 127.0.1.2 with 127.0.2.2); failover runs with both sides here only"})
    String device = "iwarp";

    @Option(names = "--idle", paramLabel = "backoff|spin|sleep",
            description = "what an idle engine thread does: back off to waiting on its sockets (default), busy-spin, or sleep 1 ms")
    String idle = "backoff";

    @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "server port (default 18515 with --server/--connect, a free port here)")
    Integer port;

    @Option(names = "--poll", description = "busy-poll the completion queue (default); the baseline busy-polls non-blocking sockets")
    boolean poll;

    @Option(names = {"-e", "--event"}, description = "block on completion events; the baseline blocks in socket reads and writes")
    boolean event;

    @Option(names = "--baseline", paramLabel = "tcp|iwarp",
            description = {"also run the pattern over plain java.nio TCP on the same path (tcp), or over plain iWARP adapters",
                    "on 127.0.1.1 and 127.0.1.2 (iwarp, with --device failover), and print the ratio"})
    String baseline;

    @Option(names = "--json", description = "print one JSON object with every figure instead of the tables")
    boolean json;

    @Option(names = "--warmup", paramLabel = "N",
            description = "iterations run first and not counted (default: as many as measured; with -D, the first 2 s)")
    Integer warmup;

    @Option(names = "--server", description = "listen, serve one client, exit")
    boolean server;

    @Option(names = "--connect", paramLabel = "HOST", description = "connect to a tandem perf --server")
    String connect;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    @Option(names = "--local", paramLabel = "IP", description = "this side's adapter address (--server: required; --connect: default is the route to HOST)")
    String local;

    public PerfCommand() {
        this(Adapters::open);
    }

    public PerfCommand(AdapterOpener opener) {
        this.opener = opener;
    }

    @Override
    public Integer call() {
        PerfSettings s = settings();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (s.role() == Role.SERVER) {
            serve(s, out, err);
            return 0;
        }
        PerfTextPrinter printer = new PerfTextPrinter(out, s);
        PerfProgress progress = json ? PerfProgress.NONE : new PerfProgress() {
            @Override
            public void connected(String localAddress, String remote, boolean crcInUse) {
                printer.start(localAddress, remote, crcInUse);
            }

            @Override
            public void result(SizeResult result) {
                printer.tandemRow(result);
            }
        };
        MeasuredRun run = s.role() == Role.LOOPBACK ? PerfLoopback.run(s, engineOpener(s.device()), engineOpener(PerfDevice.IWARP), progress)
                : measureAgainst(s, progress);
        PerfReport report = PerfReport.of(s, run);
        if (json) {
            out.println(PerfJson.of(report));
            out.flush();
        } else {
            printer.finish(report);
        }
        return 0;
    }

    /** Validates the options; a bad one raises a picocli error that names it. */
    PerfSettings settings() {
        if (all && size != null) {
            throw new ParameterException(spec.commandLine(), "-a sweeps every size from 2 to " + PerfSettings.MAX_SIZE + " bytes; do not also give -s");
        }
        if (duration != null && iterations != null) {
            throw new ParameterException(spec.commandLine(), "-D/--duration and -n/--iters exclude each other: measure for a time (-D SECONDS) "
                    + "or for a count (-n N)");
        }
        if (duration != null && all) {
            throw new ParameterException(spec.commandLine(), "-D/--duration runs one size for a time and does not combine with -a/--all "
                    + "(perftest refuses that too): give -s SIZE, or drop -D to sweep by count");
        }
        if (duration != null && duration < 1) {
            throw new ParameterException(spec.commandLine(), "-D/--duration " + duration + " is not positive: give the seconds to measure, 1 or more");
        }
        if (poll && event) {
            throw new ParameterException(spec.commandLine(), "--poll and --event exclude each other: choose one waiting mode");
        }
        if (server && connect != null) {
            throw new ParameterException(spec.commandLine(), "--server and --connect exclude each other: one process serves, the other connects");
        }
        boolean crcOn = switch (crc.toLowerCase(Locale.ROOT)) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new ParameterException(spec.commandLine(), "--crc takes on or off, got '" + crc + "'");
        };
        if (warmup != null && warmup < 0) {
            throw new ParameterException(spec.commandLine(), "--warmup " + warmup + " is negative: give 0.." + PerfSettings.MAX_ITERS + " iterations");
        }
        Role role = server ? Role.SERVER : connect != null ? Role.CLIENT : Role.LOOPBACK;
        int resolvedPort = port != null ? port : role == Role.LOOPBACK ? 0 : PerfSettings.DEFAULT_PORT;
        try {
            return new PerfSettings(test, size != null ? size : test.defaultSize(),
                    iterations != null ? iterations : test.defaultIterations(), duration != null ? duration : PerfSettings.NO_DURATION,
                    txDepth, all, crcOn,
                    event ? WaitMode.EVENT : WaitMode.POLL, PerfDevice.fromCliName(device),
                    baseline != null ? Baseline.fromCliName(baseline) : Baseline.NONE,
                    warmup != null ? warmup : PerfSettings.DEFAULT_WARMUP, role, connect, local, resolvedPort);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    /** The opener of {@code kind} with the engine settings of --engine and --idle (the injected opener for iwarp when both are default). */
    private AdapterOpener engineOpener(PerfDevice kind) {
        String threading = switch (engine.toLowerCase(Locale.ROOT)) {
            case "dedicated", "shared" -> engine.toLowerCase(Locale.ROOT);
            default -> throw new ParameterException(spec.commandLine(), "--engine takes dedicated or shared, got '" + engine + "'");
        };
        String idleKind = switch (idle.toLowerCase(Locale.ROOT)) {
            case "backoff" -> "backoff";
            case "spin" -> "busy-spin";
            case "sleep" -> "sleep";
            default -> throw new ParameterException(spec.commandLine(), "--idle takes backoff, spin or sleep, got '" + idle + "'");
        };
        String options = "threading=" + threading + "&idle=" + idleKind;
        return switch (kind) {
            case FAILOVER -> (ip, crcOn) -> Adapters.openFailover(ip, crcOn, options);
            case IWARP -> threading.equals("dedicated") && idleKind.equals("backoff") ? opener : (ip, crcOn) -> Adapters.open(ip, crcOn, options);
        };
    }

    private MeasuredRun measureAgainst(PerfSettings s, PerfProgress progress) {
        InetAddress host = resolve(s.host(), "--connect");
        InetAddress localIp = s.local() != null ? resolve(s.local(), "--local") : LocalRoute.towards(host);
        try (RdmaDevice device = engineOpener(s.device()).open(localIp.getHostAddress(), s.crc())) {
            return PerfClient.run(device, localIp, new InetSocketAddress(host, s.port()), s, progress);
        }
    }

    private void serve(PerfSettings s, PrintWriter out, PrintWriter err) {
        InetAddress localIp = resolve(s.local(), "--local");
        try (RdmaDevice device = engineOpener(s.device()).open(localIp.getHostAddress(), s.crc());
             PerfServer perfServer = PerfServer.listen(device, new InetSocketAddress(localIp, s.port()), s.crc())) {
            String address = perfServer.address().getAddress().getHostAddress() + ":" + perfServer.address().getPort();
            err.println("tandem perf: waiting for a client on " + address);
            err.flush();
            ServedRun run = perfServer.serveOne(Duration.ofDays(1));
            if (json) {
                out.println(PerfJson.served(run, address));
                out.flush();
            } else {
                PerfTextPrinter.served(out, run, address);
            }
        }
    }

    private InetAddress resolve(String name, String option) {
        try {
            return InetAddress.getByName(name);
        } catch (UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), option + " " + name + ": unknown host (" + e.getMessage() + ")", e);
        }
    }

    /** TEST names as perftest's program names without the {@code ib_} prefix. */
    static final class TestConverter implements ITypeConverter<PerfTest> {
        @Override
        public PerfTest convert(String value) {
            try {
                return PerfTest.fromCliName(value.toLowerCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

}
