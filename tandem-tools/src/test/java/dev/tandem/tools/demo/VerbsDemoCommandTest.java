package dev.tandem.tools.demo;

import dev.tandem.tools.CliRun;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class VerbsDemoCommandTest {
    @Test
    void everyStepBehaves() {
        CliRun.Result r = CliRun.run("demo", "verbs");
        String text = r.out();
        assertThat(r.exit()).as("demo output:%n%s%nstderr:%n%s", text, r.err()).isZero();
        assertThat(text).contains("demo finished: all 9 steps behaved as expected")
                .contains("a: DEVICE_FATAL - injected: demo: simulated PCI error; port FATAL, QP ERROR")
                .containsPattern("a is usable again \\d+\\.\\d\\d ms after the fault")
                .contains("status=REM_ACCESS_ERR")
                .contains("b answered with a Terminate: RDMAP_")
                .contains("QP_ACCESS_ERROR")
                .contains("queue pairs now: a ERROR, b ERROR")
                .containsPattern("ratio vs tcp: bw \\d+\\.\\d\\dx")
                .containsPattern("ratio vs tcp: t_typical \\d+\\.\\d\\dx")
                .doesNotContain("FAILED");
        assertThat(text.split("\n")).filteredOn(l -> l.trim().equals("ok")).hasSize(9);
    }

    @Test
    void aFailingStepFailsTheDemo() {
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new VerbsDemoCommand((ip, crc) -> {
            throw new DemoFailure("no adapter at " + ip + " in this test");
        }));
        cl.setOut(new PrintWriter(out));
        assertThat(cl.execute()).isEqualTo(1);
        assertThat(out.toString()).contains("FAILED: no adapter at 127.0.1.1 in this test")
                .contains("demo FAILED at step 1 of 9");
    }
}
