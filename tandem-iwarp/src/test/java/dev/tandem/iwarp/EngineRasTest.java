package dev.tandem.iwarp;

import dev.tandem.ras.CounterSnapshot;
import dev.tandem.ras.ErrorEntry;
import dev.tandem.ras.ProcessRas;
import dev.tandem.ras.RasReader;
import dev.tandem.verbs.CompletionStatus;
import dev.tandem.verbs.ReceiveRequest;
import dev.tandem.verbs.Sge;
import dev.tandem.verbs.WorkRequest;
import dev.tandem.verbs.WrFlags;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The engine reports its traffic, completions, Terminates and errors into the process's RAS file. */
class EngineRasTest {

    private static long value(List<CounterSnapshot> counters, String label) {
        return counters.stream().filter(c -> c.label().equals(label)).mapToLong(CounterSnapshot::value).findFirst()
                .orElseThrow(() -> new AssertionError("no counter '" + label + "' among "
                        + counters.stream().map(CounterSnapshot::label).filter(l -> l.startsWith(label.substring(0, label.indexOf(' ')))).toList()));
    }

    @Test
    void countersAndErrorLogTellWhatHappened() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            String a = p.a.name();
            String b = p.b.name();
            p.qpB.postReceive(new ReceiveRequest(1, new Sge(p.mrB, 0, 256)));
            p.qpA.postSend(new WorkRequest.Send(2, new Sge(p.mrA, 0, 100), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.SUCCESS);
            assertThat(LoopbackPair.awaitOne(p.cqB).status()).isEqualTo(CompletionStatus.SUCCESS);
            p.qpA.postSend(new WorkRequest.RdmaRead(4, new Sge(p.mrA, 1024, 512), 0, p.mrB.rkey(), WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.SUCCESS);
            p.qpA.postSend(new WorkRequest.RdmaRead(3, new Sge(p.mrA, 0, 64), 0, p.mrB.rkey() ^ 0x33, WrFlags.SIGNALED));
            assertThat(LoopbackPair.awaitOne(p.cqA).status()).isEqualTo(CompletionStatus.REM_ACCESS_ERR);

            try (RasReader reader = RasReader.open(ProcessRas.current().path())) {
                List<CounterSnapshot> counters = reader.counters();
                assertThat(value(counters, a + " connect attempts")).isEqualTo(1);
                assertThat(value(counters, a + " connects established")).isEqualTo(1);
                assertThat(value(counters, b + " requests accepted")).isEqualTo(1);
                assertThat(value(counters, a + " sent SEND")).isEqualTo(1);
                assertThat(value(counters, b + " received SEND")).isEqualTo(1);
                assertThat(value(counters, a + " qp " + p.qpA.qpNumber() + " bytes sent")).isEqualTo(100);
                assertThat(value(counters, b + " qp " + p.qpB.qpNumber() + " bytes received")).as("the Send only").isEqualTo(100);
                assertThat(value(counters, a + " qp " + p.qpA.qpNumber() + " bytes received")).as("the Read's data").isEqualTo(512);
                assertThat(value(counters, b + " qp " + p.qpB.qpNumber() + " bytes sent")).as("the Read Response").isEqualTo(512);
                assertThat(value(counters, b + " sent READ_RESPONSE")).isEqualTo(1);
                assertThat(value(counters, b + " completions SUCCESS")).isEqualTo(1);
                assertThat(value(counters, a + " completions SUCCESS")).as("the Send and the good Read").isEqualTo(2);
                assertThat(value(counters, a + " completions REM_ACCESS_ERR")).isEqualTo(1);
                assertThat(value(counters, b + " terminates sent RDMAP_INVALID_STAG(layer=0 etype=1 ecode=0x00)")).isEqualTo(1);
                assertThat(value(counters, a + " terminates received RDMAP_INVALID_STAG(layer=0 etype=1 ecode=0x00)")).isEqualTo(1);
                List<ErrorEntry> errors = reader.errors();
                assertThat(errors).as("error log").anySatisfy(e -> {
                    assertThat(e.cause()).startsWith(b + ": ").contains("RDMAP_INVALID_STAG");
                    assertThat(e.count()).isEqualTo(1);
                });
                assertThat(errors).anySatisfy(e -> assertThat(e.cause()).startsWith(a + ": peer sent Terminate RDMAP_INVALID_STAG"));
            }
        }
    }

    @Test
    void verbsQpTracesCreateModifyErrorAndCloseAtItsLevels() throws Exception {
        try (LoopbackPair p = new LoopbackPair(c -> c, 4096)) {
            dev.tandem.ras.Trace trace = ProcessRas.current().trace();
            trace.component("verbs.qp").setLevel(dev.tandem.ras.TraceLevel.ENTRY_EXIT);
            try {
                dev.tandem.verbs.QueuePair qp = p.pdA.createQueuePair(dev.tandem.verbs.QueuePairConfig.of(p.cqA));
                qp.modify(dev.tandem.verbs.QpState.ERROR);
                qp.close();
                List<dev.tandem.ras.TraceRecord> mine = trace.records().stream()
                        .filter(r -> r.component().equals("verbs.qp") && r.a() == qp.qpNumber()).toList();
                assertThat(mine).extracting(dev.tandem.ras.TraceRecord::event)
                        .containsSubsequence("create", "modify", "to-error", "close");
                assertThat(mine).filteredOn(r -> r.event().equals("modify")).singleElement()
                        .satisfies(r -> assertThat(r.text()).isEqualTo("INIT -> ERROR"));
            } finally {
                trace.component("verbs.qp").setLevel(dev.tandem.ras.TraceLevel.ERROR);
            }
        }
    }
}
