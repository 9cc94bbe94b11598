package dev.tandem.tools;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root directory, found from the test's working directory upwards. */
final class RepoRoot {
    private RepoRoot() {
    }

    static Path find() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("tandem-tools"))) {
                return p;
            }
        }
        throw new IllegalStateException("no repository root (README.md next to tandem-tools/) above " + Path.of("").toAbsolutePath());
    }
}
