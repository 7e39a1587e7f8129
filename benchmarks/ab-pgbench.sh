#!/usr/bin/env bash
# A/B comparison of two builds of the benchmarks jar under pgbench (issue 16): per round, a fresh MeldDB
# (GatewayMain, embedded, data in a temp dir) from jar A, then one from jar B, then the throwaway PostgreSQL 15
# cluster (if its binaries are there), each initialised with `pgbench -i -s 1` and run with pgbench's built-in
# tpcb-like script in every query mode asked for (A B PG, A B PG, ...: a noisy machine hits all alike); prints each
# window's tps, failed transactions and retries, and MeldDB's server CPU per transaction by thread group (from
# /proc/PID/task), then the medians per target and mode.
# Usage: benchmarks/ab-pgbench.sh JAR_A JAR_B ROUNDS
#   e.g. cp benchmarks/target/benchmarks.jar /tmp/before.jar (at the old commit), rebuild, then
#   PGBENCH_SECONDS=15 benchmarks/ab-pgbench.sh /tmp/before.jar benchmarks/target/benchmarks.jar 3
# Environment: PGBENCH_SECONDS (15), WARMUP_SECONDS (5: an unmeasured run per mode first, so that the JIT's work
# on each mode's code does not fall into the first mode's window), MODES ("simple prepared"), PG_BIN,
# JAVA_OPTS (-Xmx2g; e.g. a JFR recording), POSTGRES (1; 0 leaves PostgreSQL out).
set -uo pipefail # no -e: a failing window is reported and the next one runs; the trap always cleans up
if (( $# < 3 )); then
  sed -n "2,13p" "$0" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar_a="$1" jar_b="$2" rounds="$3"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
seconds="${PGBENCH_SECONDS:-15}"
WARMUP_SECONDS="${WARMUP_SECONDS:-5}"
modes="${MODES:-simple prepared}"
# shellcheck disable=SC2207  # bin/jvm-flags is a whitespace-separated list of flags
java_flags=($(cat "$root/bin/jvm-flags") ${JAVA_OPTS:--Xmx2g})
pgbench="$(command -v pgbench || true)"
[[ -x "$pg_bin/pgbench" ]] && pgbench="$pg_bin/pgbench"
if [[ -z "$pgbench" ]]; then
  echo "ab-pgbench: pgbench not found" >&2
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/meldb-ab-pgbench.XXXXXX")"
chmod 755 "$work"
pg_data="$work/pg/data"
pg_started=0
meld_pid=""

as_pg() {
  if [[ "$(id -u)" != 0 ]]; then
    (cd "$work/pg" && "$@")
  else
    (cd "$work/pg" && runuser -u postgres -- "$@")
  fi
}

stop_meld() {
  if [[ -n "$meld_pid" ]]; then
    kill "$meld_pid" 2>/dev/null
    wait "$meld_pid" 2>/dev/null
    meld_pid=""
  fi
}

cleanup() {
  stop_meld
  if (( pg_started )); then
    as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null 2>&1
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ "${POSTGRES:-1}" != 0 ]]; then
  # free_port, and a throwaway PostgreSQL cluster (pg_url, pg_port, pg_started)
  source "$root/benchmarks/scratch-postgres.sh"
else
  free_port() {
    local p
    for _ in $(seq 1 200); do
      p=$((20000 + RANDOM % 30000))
      if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
    done
    return 1
  }
  pg_url=""
fi

# cpu_ticks PID: per thread group of the process (meldb-pg-io, meldb-pg-worker, the txn-server's meldb-*, the log's
# log-*, the JVM's garbage collector and JIT compilers, everything else), user+system clock ticks so far
cpu_ticks() {
  local pid="$1" t
  for t in /proc/"$pid"/task/*; do
    [[ -r "$t/stat" ]] || continue
    printf '%s %s\n' "$(cat "$t/comm" 2>/dev/null)" "$(sed 's/^.*) //' "$t/stat" 2>/dev/null | cut -d' ' -f12,13)"
  done | awk '{ g = "other"; if ($1 ~ /^meldb-pg-io/) g = "pg-io"; else if ($1 ~ /^meldb-pg-work/) g = "pg-worker"
                else if ($1 ~ /^meldb-/) g = "txn-server"; else if ($1 ~ /^log-/) g = "log"
                else if ($1 ~ /^(GC|G1|VM)$/) g = "gc"; else if ($1 ~ /^C[12]$/) g = "jit"; c[g] += $(NF - 1) + $NF }
              END { for (g in c) print g, c[g] }' | sort
}

# window TARGET ROUND MODE CONN...: one pgbench run; a summary line on stdout (with the MeldDB server's CPU per
# transaction by thread group, from /proc, for A and B)
window() {
  local target="$1" round="$2" mode="$3"
  shift 3
  local opts=""
  [[ "$target" == PG ]] && opts="-c default_transaction_isolation=serializable"
  local before="" hz
  hz="$(getconf CLK_TCK)"
  if [[ "$target" != PG ]]; then
    before="$(cpu_ticks "$meld_pid")"
    [[ -n "${JFR_DIR:-}" ]] && jcmd "$meld_pid" JFR.start name=w settings="${JFR_SETTINGS:-profile}" >/dev/null
  fi
  PGOPTIONS="$opts" timeout $((seconds + 120)) "$pgbench" -n -c 4 -j 2 -T "$seconds" -M "$mode" --max-tries=10 \
    --failures-detailed -b tpcb-like "$@" >"$work/pgbench.log" 2>&1
  local tps failed retried
  local cpu=""
  if [[ -n "$before" ]]; then
    local txns after
    after="$(cpu_ticks "$meld_pid")"
    [[ -n "${JFR_DIR:-}" ]] && jcmd "$meld_pid" JFR.stop name=w filename="$JFR_DIR/$target-$mode-$round.jfr" >/dev/null
    txns="$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/pgbench.log")"
    cpu="$(join -a 2 <(echo "$before") <(echo "$after") | awk -v n="${txns:-0}" -v hz="$hz" '
      NF == 2 { $3 = $2; $2 = 0 } n > 0 { d = ($3 - $2) * 1e6 / hz / n; t += d; s = s sprintf(" %s=%.0f", $1, d) }
      END { if (n > 0) printf ", cpu us/txn %.0f:%s", t, s }')"
  fi
  local tps failed retried
  tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.log")"
  failed="$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$work/pgbench.log")"
  retried="$(sed -n 's/^total number of retries: \([0-9]*\).*/\1/p' "$work/pgbench.log")"
  if [[ -z "$tps" ]]; then
    echo "$target $mode $round: FAILED"
    sed 's/^/   /' "$work/pgbench.log" | tail -15
    return
  fi
  echo "$target $mode $round: $tps tps, failed $failed, retries $retried$cpu" | tee -a "$work/summary"
}

# warm_up MODE CONN...: an unmeasured pgbench run
warm_up() {
  local mode="$1"
  shift
  (( ${WARMUP_SECONDS:-5} > 0 )) || return 0
  timeout $((WARMUP_SECONDS + 120)) "$pgbench" -n -c 4 -j 2 -T "${WARMUP_SECONDS:-5}" -M "$mode" --max-tries=10 \
    -b tpcb-like "$@" >/dev/null 2>&1
}

# meld SIDE ROUND JAR: a fresh MeldDB from JAR, pgbench -i, every mode, stopped again
meld() {
  local side="$1" round="$2" jar="$3"
  local port
  port="$(free_port)"
  rm -rf "$work/meldb"
  mkdir -p "$work/meldb"
  java "${java_flags[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$jar" io.meldb.launcher.GatewayMain \
    --port 0 --pg-port "$port" --data-dir "$work/meldb/data" >"$work/meldb/out.log" 2>&1 &
  meld_pid=$!
  for _ in $(seq 1 240); do
    grep -q "MeldDB PostgreSQL" "$work/meldb/out.log" && break
    kill -0 "$meld_pid" 2>/dev/null || break
    sleep 0.5
  done
  if ! grep -q "MeldDB PostgreSQL" "$work/meldb/out.log"; then
    echo "$side $round: MeldDB did not start"
    tail -20 "$work/meldb/out.log"
    stop_meld
    return
  fi
  local conn=(-h 127.0.0.1 -p "$port" -U bench meldb)
  if ! timeout 600 "$pgbench" -i -s 1 "${conn[@]}" >"$work/init.log" 2>&1; then
    echo "$side $round: pgbench -i failed"
    tail -15 "$work/init.log"
    stop_meld
    return
  fi
  for mode in $modes; do
    warm_up "$mode" "${conn[@]}"
  done
  for mode in $modes; do
    window "$side" "$round" "$mode" "${conn[@]}"
  done
  stop_meld
}

pg_ok=0
if [[ -n "${pg_url:-}" ]]; then
  timeout 600 "$pgbench" -i -s 1 -h 127.0.0.1 -p "$pg_port" -U postgres postgres >"$work/init-pg.log" 2>&1 && pg_ok=1
fi
touch "$work/summary"
for r in $(seq 1 "$rounds"); do
  meld A "$r" "$jar_a"
  meld B "$r" "$jar_b"
  if (( pg_ok )); then
    for mode in $modes; do
      window PG "$r" "$mode" -h 127.0.0.1 -p "$pg_port" -U postgres postgres
    done
  fi
done

echo
echo "medians of $rounds rounds, pgbench -c 4 -j 2 -T $seconds --max-tries=10, scale 1, SERIALIZABLE" \
  "(A = $jar_a, B = $jar_b, PG = PostgreSQL):"
for target in A B PG; do
  for mode in $modes; do
    grep "^$target $mode " "$work/summary" | awk -v t="$target" -v m="$mode" '
      { tps[NR] = $4 + 0; f[NR] = $7 + 0; r[NR] = $9 + 0; c[NR] = $12 + 0
        for (i = 13; i <= NF; i++) { split($i, kv, "="); g[kv[1]] = g[kv[1]] " " kv[2] } }
      function meds(str,   a, n, i) { n = split(str, a, " "); for (i = 1; i <= n; i++) a[i] += 0; return med(a, n) }
      function med(a, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
          if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }; return a[int((n + 1) / 2)] }
      END { if (NR) printf "%-2s %-8s %9.1f tps  failed %7d  retries %7d  server cpu %5d us/txn  (%d windows)\n",
              t, m, med(tps, NR), med(f, NR), med(r, NR), med(c, NR), NR
            for (k in g) printf "     %s %d us/txn\n", k, meds(g[k]) }'
  done
done
