package dev.tandem.tools.lab;

import java.util.Objects;

/**
 * One network link of a lab, by the namespace that holds it and its name there, e.g. {@code tandem-h1 a1}.
 *
 * @param namespace the network namespace
 * @param link      the link's name inside it
 */
public record LinkEnd(String namespace, String link) {
    public LinkEnd {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(link, "link");
    }

    @Override
    public String toString() {
        return namespace + " " + link;
    }
}
