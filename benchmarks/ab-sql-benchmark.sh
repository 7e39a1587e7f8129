#!/usr/bin/env bash
# A/B comparison of two builds of the benchmarks jar on the SQL benchmark (issue 16): alternates one-round runs of
# io.meldb.bench.SqlTxnBenchmark from jar A and jar B (A B A B ...), each with a fresh embedded MeldDB, so a noisy
# machine hits both alike, and prints per run the committed tps and the server CPU per committed transaction by
# thread group, then the medians per side.
# Usage: benchmarks/ab-sql-benchmark.sh JAR_A JAR_B ROUNDS [SqlTxnBenchmark flags...]
#   e.g. cp benchmarks/target/benchmarks.jar /tmp/before.jar (at the old commit), rebuild, then
#   benchmarks/ab-sql-benchmark.sh /tmp/before.jar benchmarks/target/benchmarks.jar 3 --variant update \
#       --targets meld-pg --rows 100000 --seconds 10 --warmup 5
# Environment: JAVA_OPTS (-Xmx2g); A_ARGS / B_ARGS: further SqlTxnBenchmark flags for one side only, e.g. the same
#   jar twice with A_ARGS="--meld-threading dedicated" B_ARGS="--meld-threading chained"; A_JAVA_OPTS /
#   B_JAVA_OPTS: further JVM flags for one side only (heap or GC settings).
# Besides tps and server CPU, each run's line and the medians carry the clients' CPU and the JVM's own (GC, JIT:
# gc_jit), both outside the server total, and the transaction's p50/p99 (txn_p50, txn_p99) and its
# COMMIT round trip's (commit_p50, commit_p99), in ms.
set -uo pipefail
if (( $# < 3 )); then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar_a="$1" jar_b="$2" rounds="$3"
shift 3
# shellcheck disable=SC2207  # bin/jvm-flags is a whitespace-separated list of flags
java_flags=($(cat "$root/bin/jvm-flags") ${JAVA_OPTS:--Xmx2g})
out="$(mktemp -d "${TMPDIR:-/tmp}/meldb-ab.XXXXXX")"
trap 'rm -rf "$out"' EXIT

# one run: SIDE ROUND JAR; its output in $out/SIDE-ROUND.log, a summary line on stdout
run() {
  local side="$1" round="$2" jar="$3" extra jvm_extra
  if [[ "$side" == A ]]; then extra="${A_ARGS:-}"; else extra="${B_ARGS:-}"; fi
  if [[ "$side" == A ]]; then jvm_extra="${A_JAVA_OPTS:-}"; else jvm_extra="${B_JAVA_OPTS:-}"; fi
  # shellcheck disable=SC2086  # the side's extra flags are whitespace-separated lists
  java "${java_flags[@]}" $jvm_extra -cp "$jar" io.meldb.bench.SqlTxnBenchmark --rounds 1 "${args[@]}" $extra \
    >"$out/$side-$round.log" 2>&1 || { echo "$side round $round FAILED:"; tail -20 "$out/$side-$round.log"; return; }
  awk -v side="$side" -v round="$round" '
    /^round 1 / && /tps/ && !seen++ { for (i = 1; i <= NF; i++) { if ($(i + 1) == "tps") tps = $i
        if ($i == "p50") p50 = $(i + 1); if ($i == "p99") p99 = $(i + 1) } }
    /COMMIT round trip p50/ && !cseen++ { for (i = 1; i <= NF; i++) if ($i == "trip") { c50 = $(i + 2); c99 = $(i + 4) } }
    /^\| [^|]* \| [0-9.]+ \|$/ && !/committed/ {
      split($0, f, "|"); g = f[2]; gsub(/^ +| +$/, "", g)
      if (g ~ /^\((JVM|clients)/) { v = f[3]; gsub(/ /, "", v); cpu[++n] = (g ~ /^\(JVM/ ? "gc_jit" : "clients") "=" v; next }
      if (g ~ /^\(/) next
      sub(/ \(.*$/, "", g); sub(/^.*: /, "", g); gsub(/ /, "_", g)
      v = f[3]; gsub(/ /, "", v); cpu[++n] = g "=" v }
    /server total/ { split($0, f, "|"); t = f[3]; gsub(/[ *]/, "", t) }
    END { printf "%s %d: %s tps, server %s us/txn:", side, round, tps, t
          for (i = 1; i <= n; i++) printf " %s", cpu[i]
          printf " txn_p50=%s txn_p99=%s commit_p50=%s commit_p99=%s\n", p50, p99, c50, c99 }' "$out/$side-$round.log"
}
args=("$@")
for r in $(seq 1 "$rounds"); do
  run A "$r" "$jar_a" | tee -a "$out/summary"
  run B "$r" "$jar_b" | tee -a "$out/summary"
done
echo
echo "medians (A = $jar_a ${A_JAVA_OPTS:-} ${A_ARGS:-}, B = $jar_b ${B_JAVA_OPTS:-} ${B_ARGS:-}):"
for side in A B; do
  grep "^$side " "$out/summary" | awk -v side="$side" '
    { split($0, h, ":"); sub(/ tps.*/, "", h[2]); tps[NR] = h[2] + 0
      if (match($0, /server [0-9.]+/)) tot[NR] = substr($0, RSTART + 7, RLENGTH - 7) + 0
      line = $0; sub(/^.*us\/txn: /, "", line); m = split(line, kv, " ")
      for (i = 1; i <= m; i++) { split(kv[i], p, "="); vals[p[1]] = vals[p[1]] " " p[2]; names[p[1]] = 1 } }
    function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
        if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return n ? a[int((n + 1) / 2)] : "-" }
    END { s = ""; for (i = 1; i <= NR; i++) s = s " " tps[i]; u = ""; for (i = 1; i <= NR; i++) u = u " " tot[i]
          printf "%s: %s tps, server %s us/txn;", side, med(s), med(u)
          for (k in names) printf " %s=%s", k, med(vals[k]); printf "\n" }'
done
