package dev.tandem.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** RatioReport pairs JMH results that differ only in RAS and compares their medians. */
class RatioReportTest {

    private static String run(String benchmark, String mode, String unit, String params, String rawData) {
        return """
                {
                    "jmhVersion" : "1.37",
                    "benchmark" : "dev.tandem.bench.%s",
                    "mode" : "%s",
                    "threads" : 1,
                    "forks" : 2,
                    "jvmArgs" : [ "-Dtandem.ras=off" ],
                    %s
                    "primaryMetric" : {
                        "score" : 999.0,
                        "scoreError" : "NaN",
                        "scoreConfidence" : [ "NaN", "NaN" ],
                        "scorePercentiles" : { "0.0" : 1.0, "50.0" : 777.0, "100.0" : 1000.0 },
                        "scoreUnit" : "%s",
                        "rawData" : %s
                    },
                    "secondaryMetrics" : { }
                }""".formatted(benchmark, mode, params, unit, rawData);
    }

    private static final String JSON = "[" + String.join(",",
            run("RasCostBenchmark.sendLatRasOn", "avgt", "us/op", "", "[ [ 21.0, 22.0, 99.0 ], [ 20.0, 22.0 ] ]"),
            run("RasCostBenchmark.sendLatRasOff", "avgt", "us/op", "", "[ [ 20.0, 20.0 ], [ 19.0, 21.0, 50.0 ] ]"),
            run("RasCostBenchmark.writeBwRasOn", "thrpt", "ops/s", "", "[ [ 9000.0 ] ]"),
            run("RasCostBenchmark.writeBwRasOff", "thrpt", "ops/s", "", "[ [ 10000.0 ] ]"),
            run("TraceLevelBenchmark.sendLat", "avgt", "us/op", "\"params\" : { \"traceLevel\" : \"0\" },", "[ [ 30.0 ] ]"),
            run("TraceLevelBenchmark.sendLat", "avgt", "us/op", "\"params\" : { \"traceLevel\" : \"8\" },", "[ [ 33.0 ] ]"),
            run("SendLatencyBenchmark.tcpRoundTrip", "avgt", "us/op", "", "[ ]")) + "]";

    @Test
    void pairsRasOnWithRasOffAndLevel8WithLevel0() {
        List<RatioReport.Result> results = RatioReport.results(JSON);
        assertThat(results).hasSize(7);
        assertThat(results.get(0).median()).as("median of 21, 22, 99, 20, 22").isEqualTo(22.0);
        assertThat(results.get(1).median()).as("median of 20, 20, 19, 21, 50").isEqualTo(20.0);
        assertThat(results.get(6).median()).as("no raw data: JMH's 50th percentile").isEqualTo(777.0);

        List<RatioReport.Ratio> ratios = RatioReport.ratios(results);
        assertThat(ratios).extracting(RatioReport.Ratio::benchmark, RatioReport.Ratio::variant, RatioReport.Ratio::baseline)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("RasCostBenchmark.sendLat", "ras on", "ras off"),
                        org.assertj.core.groups.Tuple.tuple("RasCostBenchmark.writeBw", "ras on", "ras off"),
                        org.assertj.core.groups.Tuple.tuple("TraceLevelBenchmark.sendLat", "level 8", "level 0"));
        assertThat(ratios.get(0).ratio()).isEqualTo(1.1, within(1e-9));
        assertThat(ratios.get(0).cost()).as("10% more time per round trip").isEqualTo(0.1, within(1e-9));
        assertThat(ratios.get(1).ratio()).isEqualTo(0.9, within(1e-9));
        assertThat(ratios.get(1).cost()).as("throughput: 10000/9000 - 1").isEqualTo(1 / 0.9 - 1, within(1e-9));
        assertThat(ratios.get(2).cost()).isEqualTo(0.1, within(1e-9));

        assertThat(RatioReport.unpaired(results)).extracting(RatioReport.Result::benchmark)
                .containsExactly("SendLatencyBenchmark.tcpRoundTrip");
        String report = RatioReport.format(ratios, RatioReport.unpaired(results));
        assertThat(report.lines()).hasSize(5);
        assertThat(report.lines().toList().get(1)).startsWith("RasCostBenchmark.sendLat").contains("ras on / ras off", "22.000", "20.000",
                "1.100", "+10.0%");
        assertThat(report.lines().toList().get(3)).contains("level 8 / level 0", "33.000", "30.000");
        assertThat(report).contains("unpaired: SendLatencyBenchmark.tcpRoundTrip - 777.000 us/op");
    }

    @Test
    void keepsOtherParametersApartWhenPairing() {
        String json = "[" + String.join(",",
                run("TraceLevelBenchmark.writeBw", "thrpt", "ops/s", "\"params\" : { \"traceLevel\" : \"0\", \"crc\" : \"true\" },", "[ [ 100.0 ] ]"),
                run("TraceLevelBenchmark.writeBw", "thrpt", "ops/s", "\"params\" : { \"traceLevel\" : \"0\", \"crc\" : \"false\" },", "[ [ 200.0 ] ]"),
                run("TraceLevelBenchmark.writeBw", "thrpt", "ops/s", "\"params\" : { \"traceLevel\" : \"8\", \"crc\" : \"false\" },", "[ [ 150.0 ] ]"))
                + "]";
        List<RatioReport.Result> results = RatioReport.results(json);
        List<RatioReport.Ratio> ratios = RatioReport.ratios(results);
        assertThat(ratios).singleElement().satisfies(r -> {
            assertThat(r.params()).isEqualTo("crc=false");
            assertThat(r.ratio()).isEqualTo(0.75);
        });
        assertThat(RatioReport.unpaired(results)).singleElement().extracting(RatioReport.Result::params)
                .isEqualTo(Map.of("traceLevel", "0", "crc", "true"));
    }

    @Test
    void jsonReaderNamesWhereTheInputIsBroken() {
        Map<String, Object> expected = new java.util.HashMap<>(Map.of("a", List.of(1.0, 25.0, -3.0), "b", "x\"yA", "d", true, "e", Double.NaN));
        expected.put("c", null);
        assertThat(Json.parse("{\"a\" : [1, 2.5e1, -3], \"b\" : \"x\\\"y\\u0041\", \"c\" : null, \"d\" : true, \"e\" : NaN}"))
                .isEqualTo(expected);
        assertThatThrownBy(() -> Json.parse("[1, 2")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("JSON: expected ']' at offset 5, found the end");
        assertThatThrownBy(() -> Json.parse("{\"a\" 1}")).hasMessage("JSON: expected ':' at offset 5, found '1'");
        assertThatThrownBy(() -> RatioReport.results("{}")).hasMessageContaining("expected an array of runs");
    }
}
