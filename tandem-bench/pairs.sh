#!/bin/bash
# Runs a JMH pair benchmark N times and prints RatioReport's line for each run, so the median of the
# per-run ratios can be taken (both variants of a pair run back to back inside each run).
#   tandem-bench/pairs.sh RasCostBenchmark 5
#   tandem-bench/pairs.sh TraceLevelBenchmark 5
# Build first: ./mvnw -q install -DskipTests
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:?give a benchmark class, e.g. RasCostBenchmark}
runs=${2:-5}
. .ci/find-jdk.sh
tandem_find_jdk
java_bin="$JAVA_HOME/bin/java"
cp="tandem-bench/target/tandem-bench-0.1.0-SNAPSHOT.jar:tandem-bench/target/lib/*"
out=$(mktemp -d)
for i in $(seq 1 "$runs"); do
  "$java_bin" -cp "$cp" org.openjdk.jmh.Main "$bench" -f 1 -wi 2 -i 5 -rf json -rff "$out/run$i.json" > "$out/run$i.log" 2>&1
  echo "run $i:"
  "$java_bin" -cp "$cp" dev.tandem.bench.RatioReport "$out/run$i.json" | tail -n +2
done
echo "JMH logs and JSON: $out"
