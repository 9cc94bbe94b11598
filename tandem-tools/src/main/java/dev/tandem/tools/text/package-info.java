/**
 * What the {@code tandem} commands share when they print for people: plain text tables, UTC times and
 * ages, and the one-line error a command prints when it cannot do its job (exit 1). Kept in one place so
 * that {@code stat}, {@code errors}, {@code trace} and {@code dump} format the same things the same way.
 */
package dev.tandem.tools.text;
