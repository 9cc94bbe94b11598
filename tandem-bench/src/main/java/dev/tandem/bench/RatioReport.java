package dev.tandem.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads JMH's {@code -rf json} output and prints, for each pair of runs that differ only in RAS, the
 * ratio of their medians and what the difference costs:
 * <ul>
 *   <li>{@code xRasOn} against {@code xRasOff} ({@link RasCostBenchmark});</li>
 *   <li>{@code traceLevel=N} against {@code traceLevel=0}, same other parameters
 *       ({@link TraceLevelBenchmark}).</li>
 * </ul>
 * The median is taken over every measured iteration of every fork (JMH's raw data). The ratio is
 * variant / baseline; the cost is the extra time per operation ({@code ratio - 1}) for time modes and
 * the throughput lost ({@code 1 / ratio - 1}) for throughput, so for both, +3% means the variant is 3%
 * more expensive. Usage: {@code java -cp ... dev.tandem.bench.RatioReport result.json}.
 */
public final class RatioReport {

    /** One JMH result: benchmark (class.method), parameters, mode, unit and median score. */
    record Result(String benchmark, Map<String, String> params, String mode, String unit, double median) {
    }

    /** A variant and its baseline, same benchmark and other parameters. */
    record Ratio(String benchmark, String params, String variant, String baseline, String mode, String unit,
                 double variantMedian, double baselineMedian) {

        double ratio() {
            return variantMedian / baselineMedian;
        }

        /** Relative extra cost of the variant (time per operation, or throughput lost). */
        double cost() {
            return mode.equals("thrpt") ? 1 / ratio() - 1 : ratio() - 1;
        }
    }

    private RatioReport() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: RatioReport <jmh-result.json>   (written by JMH's -rf json -rff <file>)");
            System.exit(2);
        }
        List<Result> results = results(Files.readString(Path.of(args[0])));
        System.out.print(format(ratios(results), unpaired(results)));
    }

    /** The results in JMH's JSON output. */
    static List<Result> results(String json) {
        if (!(Json.parse(json) instanceof List<?> runs)) {
            throw new IllegalArgumentException("not a JMH JSON result: expected an array of runs");
        }
        List<Result> out = new ArrayList<>();
        for (Object o : runs) {
            Map<?, ?> run = (Map<?, ?>) o;
            Map<?, ?> metric = (Map<?, ?>) run.get("primaryMetric");
            Map<String, String> params = new TreeMap<>();
            if (run.get("params") instanceof Map<?, ?> p) {
                p.forEach((k, v) -> params.put(String.valueOf(k), String.valueOf(v)));
            }
            out.add(new Result(shortName((String) run.get("benchmark")), params, (String) run.get("mode"),
                    (String) metric.get("scoreUnit"), median(metric)));
        }
        return out;
    }

    private static String shortName(String benchmark) {
        int method = benchmark.lastIndexOf('.');
        int type = benchmark.lastIndexOf('.', method - 1);
        return benchmark.substring(type + 1);
    }

    /** Median of the raw iteration scores of all forks; JMH's 50th percentile if there are none. */
    static double median(Map<?, ?> metric) {
        if (metric.get("rawData") instanceof List<?> forks && !forks.isEmpty()) {
            double[] all = forks.stream().flatMap(f -> ((List<?>) f).stream()).mapToDouble(v -> (Double) v).toArray();
            if (all.length > 0) {
                Arrays.sort(all);
                int m = all.length / 2;
                return all.length % 2 == 1 ? all[m] : (all[m - 1] + all[m]) / 2;
            }
        }
        if (metric.get("scorePercentiles") instanceof Map<?, ?> percentiles && percentiles.get("50.0") instanceof Double p50) {
            return p50;
        }
        return (Double) metric.get("score");
    }

    /** Variant and baseline of a result, or null when it takes part in no pair. */
    private record Role(String key, String params, String label, boolean baseline) {
    }

    private static Role role(Result r) {
        String b = r.benchmark();
        if (b.endsWith("RasOn") || b.endsWith("RasOff")) {
            boolean off = b.endsWith("RasOff");
            String base = b.substring(0, b.length() - (off ? "RasOff" : "RasOn").length());
            return new Role(base + " " + r.params(), describe(r.params()), off ? "ras off" : "ras on", off);
        }
        String level = r.params().get("traceLevel");
        if (level != null) {
            Map<String, String> others = new TreeMap<>(r.params());
            others.remove("traceLevel");
            return new Role(b + " " + others, describe(others), "level " + level, level.equals("0"));
        }
        return null;
    }

    private static String describe(Map<String, String> params) {
        return params.isEmpty() ? "-" : String.join(",", params.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    }

    /** Each variant against its baseline, in the order the variants appear. */
    static List<Ratio> ratios(List<Result> results) {
        Map<String, Result> baselines = new LinkedHashMap<>();
        for (Result r : results) {
            Role role = role(r);
            if (role != null && role.baseline()) {
                baselines.put(role.key(), r);
            }
        }
        List<Ratio> out = new ArrayList<>();
        for (Result r : results) {
            Role role = role(r);
            if (role == null || role.baseline() || !baselines.containsKey(role.key())) {
                continue;
            }
            Result base = baselines.get(role.key());
            String name = role.key().substring(0, role.key().indexOf(' '));
            out.add(new Ratio(name, role.params(), role.label(), role(base).label(), r.mode(), r.unit(), r.median(), base.median()));
        }
        return out;
    }

    /** Results that have no partner (a variant without its baseline, or the reverse, or no variant at all). */
    static List<Result> unpaired(List<Result> results) {
        Map<String, Integer> count = new LinkedHashMap<>();
        for (Result r : results) {
            Role role = role(r);
            if (role != null) {
                count.merge(role.key(), 1, Integer::sum);
            }
        }
        return results.stream().filter(r -> role(r) == null || count.get(role(r).key()) < 2).toList();
    }

    /** The report: one line per ratio, then the unpaired results. */
    static String format(List<Ratio> ratios, List<Result> unpaired) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-34s %-14s %-20s %-6s %-8s %14s %14s %7s %8s%n",
                "benchmark", "params", "variant / baseline", "mode", "unit", "median var.", "median base", "ratio", "cost"));
        for (Ratio r : ratios) {
            b.append(String.format(Locale.ROOT, "%-34s %-14s %-20s %-6s %-8s %14.3f %14.3f %7.3f %+7.1f%%%n",
                    r.benchmark(), r.params(), r.variant() + " / " + r.baseline(), r.mode(), r.unit(),
                    r.variantMedian(), r.baselineMedian(), r.ratio(), 100 * r.cost()));
        }
        if (ratios.isEmpty()) {
            b.append("(no pairs: expected xRasOn/xRasOff benchmarks or a traceLevel parameter with 0 among its values)\n");
        }
        for (Result r : unpaired) {
            b.append(String.format(Locale.ROOT, "unpaired: %s %s %.3f %s%n", r.benchmark(), describe(r.params()), r.median(), r.unit()));
        }
        return b.toString();
    }
}
