package dev.tandem.verbs;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A device's name as {@link RdmaDevices#open(String)} takes it: {@code scheme://address?key=value&...},
 * for example {@code iwarp://127.0.1.1?crc=off}. The scheme picks the provider; the address and the
 * options are the provider's to read.
 *
 * @param scheme  lower-case provider scheme, e.g. {@code iwarp}
 * @param address what follows {@code ://} up to {@code ?}; not empty
 * @param options the settings after {@code ?}, in the order given
 */
public record DeviceName(String scheme, String address, Map<String, String> options) {
    private static final Pattern SCHEME = Pattern.compile("[a-z][a-z0-9+.-]*");
    private static final Pattern KEY = Pattern.compile("[A-Za-z][A-Za-z0-9]*");

    public DeviceName {
        if (scheme == null || !SCHEME.matcher(scheme).matches()) {
            throw new InvalidArgumentException("device scheme '" + scheme + "' is not a scheme such as iwarp");
        }
        if (address == null || address.isEmpty()) {
            throw new InvalidArgumentException("device name " + scheme + "://... has no address; e.g. " + scheme + "://127.0.1.1");
        }
        options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }

    /**
     * Reads {@code scheme://address?key=value&...}.
     *
     * @throws InvalidArgumentException naming what is wrong with the text
     */
    public static DeviceName parse(String text) {
        if (text == null) {
            throw new InvalidArgumentException("device name is null; give one such as iwarp://127.0.1.1");
        }
        int sep = text.indexOf("://");
        if (sep < 0) {
            throw new InvalidArgumentException("device name '" + text + "' has no scheme; write it as scheme://address, e.g. iwarp://" + text);
        }
        String scheme = text.substring(0, sep).toLowerCase(Locale.ROOT);
        String rest = text.substring(sep + 3);
        int q = rest.indexOf('?');
        String address = q < 0 ? rest : rest.substring(0, q);
        Map<String, String> options = new LinkedHashMap<>();
        if (q >= 0) {
            for (String pair : rest.substring(q + 1).split("&", -1)) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                if (eq < 0 || !KEY.matcher(key).matches()) {
                    throw new InvalidArgumentException("device name '" + text + "': option '" + pair + "' is not key=value");
                }
                if (options.put(key, pair.substring(eq + 1)) != null) {
                    throw new InvalidArgumentException("device name '" + text + "': option " + key + " is given twice");
                }
            }
        }
        return new DeviceName(scheme, address, options);
    }

    /**
     * Refuses options the provider does not know, naming the ones it does.
     *
     * @throws InvalidArgumentException when an option is not in {@code known}
     */
    public void allowOnly(Set<String> known) {
        for (String key : options.keySet()) {
            if (!known.contains(key)) {
                throw new InvalidArgumentException("device " + this + ": unknown option '" + key + "'; " + scheme
                        + " knows " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    /** The option's value, or {@code otherwise} when it is not given. */
    public String option(String key, String otherwise) {
        return options.getOrDefault(key, otherwise);
    }

    /**
     * A yes/no option: {@code on}/{@code off} (also {@code true}/{@code false}), or {@code otherwise} when not given.
     *
     * @throws InvalidArgumentException for any other value
     */
    public boolean flag(String key, boolean otherwise) {
        String v = options.get(key);
        if (v == null) {
            return otherwise;
        }
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new InvalidArgumentException("device " + this + ": option " + key + "=" + v + " must be on or off");
        };
    }

    /** The value of an option that names one constant of {@code type} (any case), or {@code otherwise}. */
    public <E extends Enum<E>> E choice(String key, Class<E> type, E otherwise) {
        String v = options.get(key);
        if (v == null) {
            return otherwise;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().replace("_", "").equalsIgnoreCase(v.replace("_", "").replace("-", ""))) {
                return e;
            }
        }
        StringBuilder all = new StringBuilder();
        for (E e : type.getEnumConstants()) {
            all.append(all.isEmpty() ? "" : ", ").append(e.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw new InvalidArgumentException("device " + this + ": option " + key + "=" + v + " is not one of " + all);
    }

    /**
     * A whole-number option within {@code min..max}, or {@code otherwise} when not given.
     *
     * @throws InvalidArgumentException when it is not a number in range
     */
    public int number(String key, int min, int max, int otherwise) {
        String v = options.get(key);
        if (v == null) {
            return otherwise;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidArgumentException("device " + this + ": option " + key + "=" + v + " must be a number within " + min + ".." + max);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(scheme).append("://").append(address);
        char sep = '?';
        for (Map.Entry<String, String> e : options.entrySet()) {
            s.append(sep).append(e.getKey()).append('=').append(e.getValue());
            sep = '&';
        }
        return s.toString();
    }
}
