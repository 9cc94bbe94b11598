package dev.tandem.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkCompletionTest {
    @Test
    void setFillsEveryFieldAndCopyFromCopiesThem() {
        WorkCompletion wc = new WorkCompletion().set(42, CompletionStatus.REM_ACCESS_ERR, CompletionOpcode.RDMA_READ, 4096, 7,
                0x1234, WorkCompletion.FLAG_SOLICITED, 0x1203);
        assertEquals(42, wc.wrId());
        assertEquals(CompletionStatus.REM_ACCESS_ERR, wc.status());
        assertEquals(CompletionOpcode.RDMA_READ, wc.opcode());
        assertEquals(4096, wc.byteLength());
        assertEquals(7, wc.qpNumber());
        assertEquals(0x1234, wc.invalidatedStag());
        assertTrue(wc.isSolicited());
        assertEquals(0x1203, wc.vendorError());
        WorkCompletion copy = new WorkCompletion().copyFrom(wc);
        assertEquals(wc.toString(), copy.toString());
        assertEquals(wc.flags(), copy.flags());
    }

    @Test
    void toStringNamesTheFieldsAUserNeeds() {
        WorkCompletion plain = new WorkCompletion().set(5, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 100, 3, 0, 0, 0);
        assertEquals("WorkCompletion[wrId=5, status=SUCCESS, opcode=RECV, byteLength=100, qp=3]", plain.toString());

        WorkCompletion rich = new WorkCompletion().set(6, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 8, 3, STag.of(0x10, 0x2),
                WorkCompletion.FLAG_SOLICITED | WorkCompletion.FLAG_INVALIDATED, 0);
        String s = rich.toString();
        assertTrue(s.contains("solicited"), s);
        assertTrue(s.contains("invalidated=" + STag.format(STag.of(0x10, 0x2))), s);

        WorkCompletion error = new WorkCompletion().set(7, CompletionStatus.REM_ACCESS_ERR, CompletionOpcode.RDMA_READ, 0, 1, 0, 0, 0x1203);
        assertTrue(error.toString().contains("status=REM_ACCESS_ERR"), error.toString());
        assertTrue(error.toString().contains("vendorError=0x1203"), error.toString());
    }

    @Test
    void anInvalidatedStagIsShownOnlyWithItsFlag() {
        WorkCompletion wc = new WorkCompletion().set(1, CompletionStatus.SUCCESS, CompletionOpcode.RECV, 0, 0, 0x999, 0, 0);
        assertFalse(wc.toString().contains("invalidated"), wc.toString());
        assertFalse(wc.isSolicited());
    }

    @Test
    void arrayMakesDistinctCompletions() {
        WorkCompletion[] a = WorkCompletion.array(3);
        assertEquals(3, a.length);
        assertNotSame(a[0], a[1]);
        assertNotSame(a[1], a[2]);
        assertEquals(0, WorkCompletion.array(0).length);
    }
}
