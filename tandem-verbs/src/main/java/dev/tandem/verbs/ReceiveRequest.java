package dev.tandem.verbs;

import java.util.List;

/** A receive buffer posted to a queue pair or shared receive queue; immutable and reusable. */
public record ReceiveRequest(long wrId, List<Sge> sgl) {
    public ReceiveRequest {
        sgl = List.copyOf(sgl);
    }

    public ReceiveRequest(long wrId, Sge sge) {
        this(wrId, List.of(sge));
    }

    public long length() {
        long n = 0;
        for (int i = 0; i < sgl.size(); i++) {
            n += sgl.get(i).length();
        }
        return n;
    }
}
