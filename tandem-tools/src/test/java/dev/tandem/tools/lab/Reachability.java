package dev.tandem.tools.lab;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which adapter reaches which other host's adapter: every pair tried with a TCP connect from a socket bound
 * to the source adapter's address, all at once, each within a bound.
 */
final class Reachability {
    /** How long a connect may take before the path counts as dead (a healthy one takes well under a millisecond). */
    static final Duration BOUND = Duration.ofMillis(1500);

    private Reachability() {
    }

    /** The outcome of each pair {@code hI.aK>hJ.aL} (I != J): {@code connected}, {@code timeout}, or the error. */
    static Map<String, String> probe(Lab lab, List<HostAgent> agents) throws IOException {
        LabPlan plan = lab.plan();
        List<List<String>> keysPerAgent = new ArrayList<>();
        for (HostAgent from : agents) {
            StringBuilder line = new StringBuilder("probe " + BOUND.toMillis());
            List<String> keys = new ArrayList<>();
            for (int k = 1; k <= plan.adapters(); k++) {
                for (HostAgent to : agents) {
                    for (int l = 1; to != from && l <= plan.adapters(); l++) {
                        line.append(' ').append(lab.address(from.host(), k).getHostAddress()).append('>')
                                .append(lab.address(to.host(), l).getHostAddress()).append(':').append(to.port());
                        keys.add(new Target.Adapter(from.host(), k).name() + ">" + new Target.Adapter(to.host(), l).name());
                    }
                }
            }
            from.send(line.toString());
            keysPerAgent.add(keys);
        }
        Map<String, String> outcomes = new TreeMap<>();
        for (int a = 0; a < agents.size(); a++) {
            String answer = agents.get(a).readLine(BOUND.multipliedBy(10));
            assertThat(answer).as("answer of the agent on h%d", agents.get(a).host()).startsWith("result ");
            String[] words = answer.substring(7).strip().split(" ");
            List<String> keys = keysPerAgent.get(a);
            assertThat(words).as("outcomes for %s", keys).hasSize(keys.size());
            for (int i = 0; i < words.length; i++) {
                outcomes.put(keys.get(i), words[i]);
            }
        }
        return outcomes;
    }

    /**
     * Asserts that exactly the pairs {@code expected} accepts connected.
     *
     * @param situation what the lab's state is, for the failure message
     */
    static Map<String, String> assertReach(Lab lab, List<HostAgent> agents, String situation,
                                           BiPredicate<Target.Adapter, Target.Adapter> expected) throws IOException {
        Map<String, String> outcomes = probe(lab, agents);
        Map<String, Boolean> actual = new TreeMap<>();
        Map<String, Boolean> wanted = new TreeMap<>();
        outcomes.forEach((pair, outcome) -> {
            actual.put(pair, outcome.equals("connected"));
            String[] ends = pair.split(">");
            wanted.put(pair, expected.test(adapter(ends[0]), adapter(ends[1])));
        });
        assertThat(actual).as("which adapter reaches which, %s; outcomes: %s", situation, outcomes).isEqualTo(wanted);
        return outcomes;
    }

    private static Target.Adapter adapter(String name) {
        return (Target.Adapter) Target.parse(name);
    }
}
