#!/usr/bin/env bash
# Issue 22's replication engine comparison (docs/log-replication.md). Builds the module (profile replication-bench,
# not in the default build) and runs one engine: run.sh ratis|ratis-store|bookkeeper|meld-r1|meld-r1-fsync [appends] [inFlight] [blocksPerEntry]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
./mvnw -B -q -Preplication-bench package dependency:build-classpath -pl replication-bench -am -DskipTests \
  -Dmdep.outputFile="$root/replication-bench/target/classpath.txt"
exec java @bin/jvm-flags -Dzookeeper.admin.enableServer=false -Dorg.apache.logging.log4j.level=WARN \
  -cp "replication-bench/target/classes:$(cat replication-bench/target/classpath.txt)" \
  io.meldb.bench.replication.ReplicationBench "$@"
