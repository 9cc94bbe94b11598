package dev.tandem.iwarp;

import dev.tandem.provider.IdleStrategyKind;
import dev.tandem.provider.LeakMode;
import dev.tandem.provider.ThreadingMode;
import dev.tandem.verbs.DeviceName;
import dev.tandem.verbs.DeviceOptions;
import dev.tandem.verbs.RdmaDevice;
import dev.tandem.verbs.RdmaProvider;

import java.util.Set;

/**
 * The {@code iwarp} scheme: {@code iwarp://IP?crc=on&threading=dedicated&idle=backoff&progressOnPoll=on&maxUlpdu=0&leaks=report}
 * opens {@link IwarpDevice} on the local address IP; every option may be left out (its default is
 * {@link IwarpConfig#of(String)}'s).
 */
public final class IwarpProvider implements RdmaProvider {
    private static final Set<String> OPTIONS = Set.of("crc", "threading", "idle", "progressOnPoll", "maxUlpdu", "leaks");

    /** The provider {@link java.util.ServiceLoader} instantiates. */
    public IwarpProvider() {
    }

    @Override
    public String scheme() {
        return "iwarp";
    }

    @Override
    public String nameFormat() {
        return "iwarp://IP[?crc=on|off&threading=dedicated|shared&idle=busy-spin|backoff|sleep"
                + "&progressOnPoll=on|off&maxUlpdu=0|64..65535&leaks=report|strict]";
    }

    @Override
    public RdmaDevice open(DeviceName name, DeviceOptions options) {
        return IwarpDevice.open(config(name), options);
    }

    /** The adapter settings {@code name} gives. */
    static IwarpConfig config(DeviceName name) {
        name.allowOnly(OPTIONS);
        IwarpConfig d = IwarpConfig.of(name.address());
        return d.withCrc(name.flag("crc", d.crc()))
                .withThreading(name.choice("threading", ThreadingMode.class, d.threading()))
                .withIdle(name.choice("idle", IdleStrategyKind.class, d.idle()))
                .withProgressOnPoll(name.flag("progressOnPoll", d.progressOnPoll()))
                .withMaxUlpdu(name.number("maxUlpdu", 0, 0xFFFF, d.maxUlpdu()))
                .withLeakMode(name.choice("leaks", LeakMode.class, d.leakMode()));
    }
}
