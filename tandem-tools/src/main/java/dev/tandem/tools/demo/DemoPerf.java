package dev.tandem.tools.demo;

import dev.tandem.tools.perf.AdapterOpener;
import dev.tandem.tools.perf.Baseline;
import dev.tandem.tools.perf.Figures;
import dev.tandem.tools.perf.MeasuredRun;
import dev.tandem.tools.perf.PerfDevice;
import dev.tandem.tools.perf.PerfLoopback;
import dev.tandem.tools.perf.PerfProgress;
import dev.tandem.tools.perf.PerfReport;
import dev.tandem.tools.perf.PerfSettings;
import dev.tandem.tools.perf.PerfTest;
import dev.tandem.tools.perf.PerfTextPrinter;
import dev.tandem.tools.perf.Role;
import dev.tandem.tools.perf.SizeResult;
import dev.tandem.tools.perf.WaitMode;

import java.io.PrintWriter;

/** The demo's two short benchmark runs, printed as {@code tandem perf} prints them. */
final class DemoPerf {
    private final PrintWriter out;
    private final AdapterOpener opener;

    DemoPerf(PrintWriter out, AdapterOpener opener) {
        this.out = out;
        this.opener = opener;
    }

    void writeBandwidth() {
        run(PerfTest.WRITE_BW, 65536, 2000, 500);
    }

    void sendLatency() {
        run(PerfTest.SEND_LAT, 2, 2000, 2000);
    }

    private void run(PerfTest test, int size, int iterations, int warmup) {
        PerfSettings s = new PerfSettings(test, size, iterations, PerfSettings.NO_DURATION, PerfSettings.DEFAULT_TX_DEPTH, false, true, WaitMode.POLL,
                PerfDevice.IWARP, Baseline.TCP,
                warmup, Role.LOOPBACK, null, null, 0);
        out.printf("      running: tandem perf %s -s %d -n %d --warmup %d --baseline tcp  (Tandem first, then TCP, same path)%n",
                test.cliName(), size, iterations, warmup);
        out.flush();
        PerfTextPrinter printer = new PerfTextPrinter(out, s);
        MeasuredRun run = PerfLoopback.run(s, opener, new PerfProgress() {
            @Override
            public void connected(String local, String remote, boolean crc) {
                printer.start(local, remote, crc);
            }

            @Override
            public void result(SizeResult result) {
                printer.tandemRow(result);
            }
        });
        printer.finish(PerfReport.of(s, run));
        DemoFailure.check(run.results().size() == 1, "one result", run.results().size());
        SizeResult r = run.results().getFirst();
        sane(r.tandem(), "Tandem");
        sane(r.baseline(), "TCP");
    }

    private static void sane(Figures f, String who) {
        DemoFailure.check(f != null && f.headline() > 0 && Double.isFinite(f.headline()), who + " figures that are positive and finite", f);
    }
}
