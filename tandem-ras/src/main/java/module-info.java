/** Serviceability every layer uses: the process's RAS file (counters, error log, traces, owners), readers and dumps. */
module dev.tandem.ras {
    exports dev.tandem.ras;
}
