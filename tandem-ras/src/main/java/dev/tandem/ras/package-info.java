/**
 * Serviceability (RAS) that every Tandem layer uses: counters, a distinct error log, run-time trace
 * levels and a trace ring, all in one memory-mapped file per process ({@link dev.tandem.ras.RasFile})
 * that another process reads while the owner runs or after it died ({@link dev.tandem.ras.RasReader}).
 * Every structure in the file is bracketed by readable {@link dev.tandem.ras.StructureMarker}s; a bad one
 * raises {@link dev.tandem.ras.CorruptStructureException}. The layout is drawn in
 * {@link dev.tandem.ras.RasFileDescriptor}.
 */
package dev.tandem.ras;
