package dev.tandem.tools.perf;

/** What a measuring run reports as it goes. */
public interface PerfProgress {
    /** The connection is up: adapter addresses and whether MPA CRC is in use (either side asking turns it on). */
    void connected(String local, String remote, boolean crc);

    /** One size finished (Tandem and, with a baseline, TCP). */
    void result(SizeResult result);

    /** Reports nothing. */
    PerfProgress NONE = new PerfProgress() {
        @Override
        public void connected(String local, String remote, boolean crc) {
        }

        @Override
        public void result(SizeResult result) {
        }
    };
}
