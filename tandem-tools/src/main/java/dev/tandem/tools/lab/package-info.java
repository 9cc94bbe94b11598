/**
 * {@code tandem lab}: test hosts made of Linux network namespaces, so that fail-over can be tried with
 * pulled cables and dead switches on one machine.
 *
 * <p>A lab is a {@link dev.tandem.tools.lab.LabPlan plan} built by {@link dev.tandem.tools.lab.Lab}: each
 * host is a namespace, each adapter a veth end with an address of its own fabric (subnet), each cable
 * the rest of that veth pair, and in a switched lab one namespace holds a bridge per fabric (the switches)
 * and routes between them. Everything is read back from the system ({@code ip netns}, {@code ip link}),
 * so no state file can go stale and {@code lab down} cleans up after a crash. The {@code ip} command of
 * iproute2 does the work; it needs root.
 */
package dev.tandem.tools.lab;
