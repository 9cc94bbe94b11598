package dev.tandem.tools;

import dev.tandem.failover.FailoverDevice;
import dev.tandem.iwarp.IwarpDevice;
import dev.tandem.provider.DeviceCore;
import dev.tandem.ras.RasFile;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaProvider;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The modules as the JDK sees them (their module-info.java; the tests themselves run on the class path):
 * they resolve with nothing but the JDK and picocli, export only the API and the SPI, and the iwarp and
 * fail-over providers are found through the module graph, in a layer of its own, by the scheme a user names.
 */
class ModuleGraphTest {

    private static Path codeOf(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The tandem modules the tools need, and picocli, resolved over the boot layer (the JDK). */
    private static Configuration resolve() {
        ModuleFinder finder = ModuleFinder.of(codeOf(RdmaDevice.class), codeOf(RasFile.class), codeOf(DeviceCore.class),
                codeOf(IwarpDevice.class), codeOf(FailoverDevice.class), codeOf(TandemCli.class), codeOf(CommandLine.class));
        return ModuleLayer.boot().configuration().resolveAndBind(finder, ModuleFinder.of(), Set.of("dev.tandem.tools"));
    }

    @Test
    void eachModuleExportsOnlyItsApiAndSpi() {
        Map<String, Set<String>> exports = new TreeMap<>();
        for (ResolvedModule m : resolve().modules()) {
            ModuleDescriptor d = m.reference().descriptor();
            if (d.name().startsWith("dev.tandem.")) {
                exports.put(d.name(), d.exports().stream().map(e -> e.source() + (e.isQualified() ? " to " + e.targets() : ""))
                        .collect(Collectors.toCollection(TreeSet::new)));
            }
        }
        assertThat(exports).isEqualTo(Map.of(
                "dev.tandem.verbs", Set.of("dev.tandem.verbs"),
                "dev.tandem.ras", Set.of("dev.tandem.ras"),
                "dev.tandem.provider", Set.of("dev.tandem.provider"),
                "dev.tandem.iwarp", Set.of("dev.tandem.iwarp", "dev.tandem.iwarp.wire"),
                "dev.tandem.failover", Set.of("dev.tandem.failover", "dev.tandem.failover.check"),
                "dev.tandem.tools", Set.of()));
    }

    @Test
    void theVerbsFindTheIwarpAndFailoverProvidersThroughTheModuleGraph() throws Exception {
        Configuration cf = resolve();
        assertThat(cf.findModule("dev.tandem.iwarp")).as("resolved for the tools").isPresent();
        ModuleDescriptor iwarp = cf.findModule("dev.tandem.iwarp").orElseThrow().reference().descriptor();
        assertThat(iwarp.provides()).singleElement().satisfies(p -> {
            assertThat(p.service()).isEqualTo(RdmaProvider.class.getName());
            assertThat(p.providers()).containsExactly("dev.tandem.iwarp.IwarpProvider");
        });
        ModuleLayer layer = ModuleLayer.boot().defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());
        Class<?> providerType = layer.findLoader("dev.tandem.verbs").loadClass(RdmaProvider.class.getName());
        assertThat(providerType).as("the layer's own copy of the verbs").isNotSameAs(RdmaProvider.class);
        Set<String> schemes = new TreeSet<>();
        for (Object p : java.util.ServiceLoader.load(layer, providerType)) {
            schemes.add((String) providerType.getMethod("scheme").invoke(p));
        }
        assertThat(schemes).containsExactly("failover", "iwarp");
    }
}
