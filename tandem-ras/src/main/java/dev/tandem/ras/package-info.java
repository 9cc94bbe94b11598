/**
 * Serviceability (RAS) that every Tandem layer uses: counters, a distinct error log, run-time trace
 * levels and a trace ring, and the resource owner table, all in one memory-mapped file per process
 * ({@link dev.tandem.ras.RasFile}) that another process reads while the owner runs or after it died
 * ({@link dev.tandem.ras.RasReader}). Dumps ({@link dev.tandem.ras.ProcessRas#dump}) add the state trees
 * of the registered {@link dev.tandem.ras.SnapshotSource}s to a copy of that file; a tool asks a running
 * process for one through its file, and {@link dev.tandem.ras.DumpReader} reads them. Every structure is
 * bracketed by readable {@link dev.tandem.ras.StructureMarker}s; a bad one raises
 * {@link dev.tandem.ras.CorruptStructureException}. The layouts are drawn in
 * {@link dev.tandem.ras.RasFileDescriptor} and {@link dev.tandem.ras.DumpFileDescriptor}.
 */
package dev.tandem.ras;
