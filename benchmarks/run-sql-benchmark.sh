#!/usr/bin/env bash
# The SQL benchmark of issue 16, with PostgreSQL 15 as a peer:
#   1. creates a throwaway PostgreSQL 15 cluster (initdb as the postgres OS user, default durable settings, a free
#      loopback port, its unix socket in the temp dir) if the binaries are there; installs nothing;
#   2. runs io.meldb.bench.SqlTxnBenchmark (MeldDB via pgjdbc and Avatica, H2 TCP server, that cluster, and a no-op
#      PostgreSQL-protocol server as the floor) with the
#      arguments given to this script;
#   3. unless PGBENCH_SECONDS=0: pgbench -i -s 1 (its default steps, timed) and then pgbench -c 4 -j 2 with the
#      built-in tpcb-like script against MeldDB's PostgreSQL port (a MeldDB started from the benchmarks jar, data in
#      the temp dir) and against the cluster, in simple and prepared query mode;
#   4. always stops both servers and deletes the temp dir (trap), also on failure or Ctrl-C.
# Usage (after ./mvnw -B -q -pl benchmarks -am package -DskipTests):
#   benchmarks/run-sql-benchmark.sh --rows 100000 --seconds 8 --rounds 3
# Environment: PG_BIN (/usr/lib/postgresql/15/bin), PGBENCH_SECONDS (30; 0 skips pgbench), JAVA_BENCH (1; 0 skips
# SqlTxnBenchmark, for a pgbench-only run), JAVA_OPTS (-Xmx2g).
set -uo pipefail # no -e: a failing step is reported and the next one runs; the trap always cleans up

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/benchmarks.jar"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
pgbench_seconds="${PGBENCH_SECONDS:-30}"
# shellcheck disable=SC2207  # bin/jvm-flags is a whitespace-separated list of flags
java_flags=($(cat "$root/bin/jvm-flags") ${JAVA_OPTS:--Xmx2g})

if [[ ! -f "$jar" ]]; then
  echo "run-sql-benchmark: $jar is missing; build it: ./mvnw -B -q -pl benchmarks -am package -DskipTests" >&2
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/meldb-sql-bench.XXXXXX")"
chmod 755 "$work" # the postgres user must reach its data dir inside
pg_data="$work/pg/data"
pg_started=0
meld_pid=""
java_pid=""

# Runs a command as the postgres OS user when we are root (initdb and postgres refuse to run as root).
as_pg() {
  if [[ "$(id -u)" != 0 ]]; then
    (cd "$work/pg" && "$@")
  elif command -v runuser >/dev/null; then
    (cd "$work/pg" && runuser -u postgres -- "$@")
  else
    (cd "$work/pg" && su postgres -s /bin/sh -c "$(printf '%q ' "$@")")
  fi
}

cleanup() {
  if [[ -n "$java_pid" ]] && kill -0 "$java_pid" 2>/dev/null; then
    kill "$java_pid" 2>/dev/null # its shutdown hook stops its servers and deletes its temp dirs
    wait "$java_pid" 2>/dev/null
  fi
  if [[ -n "$meld_pid" ]]; then
    kill "$meld_pid" 2>/dev/null
    wait "$meld_pid" 2>/dev/null
    echo "stopped MeldDB (pid $meld_pid)"
  fi
  if (( pg_started )); then
    as_pg "$pg_bin/pg_ctl" -D "$pg_data" -m fast -w stop >/dev/null 2>&1 && echo "stopped PostgreSQL"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port, and a throwaway PostgreSQL cluster (pg_url, pg_port, pg_started)
source "$(dirname "${BASH_SOURCE[0]}")/scratch-postgres.sh"

# ---------------------------------------------------------------------------------------------- Java benchmark
echo
echo "== java ${java_flags[*]} -cp benchmarks/target/benchmarks.jar io.meldb.bench.SqlTxnBenchmark" \
  "${pg_url:+--pg-url $pg_url }$*"
# in the background, so that a signal reaches the trap (and the cleanup) at once
java_rc=0
if [[ "${JAVA_BENCH:-1}" != 0 ]]; then
  java "${java_flags[@]}" -cp "$jar" io.meldb.bench.SqlTxnBenchmark ${pg_url:+--pg-url "$pg_url"} "$@" &
  java_pid=$!
  wait "$java_pid"
  java_rc=$?
  java_pid=""
  echo "SqlTxnBenchmark exit status: $java_rc"
fi

# ---------------------------------------------------------------------------------------------- pgbench
if [[ "$pgbench_seconds" == 0 ]]; then
  exit "$java_rc"
fi
pgbench="$(command -v pgbench || true)"
[[ -x "$pg_bin/pgbench" ]] && pgbench="$pg_bin/pgbench"
if [[ -z "$pgbench" ]]; then
  echo "pgbench not found: skipping pgbench"
  exit "$java_rc"
fi

echo
echo "== pgbench: MeldDB (GatewayMain from the benchmarks jar, embedded, data in the temp dir) and PostgreSQL"
meld_pg_port="$(free_port)"
mkdir -p "$work/meldb"
java "${java_flags[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$jar" io.meldb.launcher.GatewayMain \
  --port 0 --pg-port "$meld_pg_port" --data-dir "$work/meldb/data" >"$work/meldb/out.log" 2>&1 &
meld_pid=$!
for _ in $(seq 1 120); do
  grep -q "MeldDB PostgreSQL" "$work/meldb/out.log" && break
  kill -0 "$meld_pid" 2>/dev/null || break
  sleep 0.5
done
if ! grep -q "MeldDB PostgreSQL" "$work/meldb/out.log"; then
  echo "MeldDB did not start:"
  cat "$work/meldb/out.log"
  exit 1
fi
grep "MeldDB PostgreSQL" "$work/meldb/out.log"

meld_conn=(-h 127.0.0.1 -p "$meld_pg_port" -U bench meldb)
pg_conn=(-h 127.0.0.1 -p "$pg_port" -U postgres postgres)

# init NAME PGBENCH-CONN...: pgbench -i with its default steps (drop, create, COPY of 100,000 accounts in one
# transaction, vacuum, primary keys), timed
init() {
  local name="$1"
  shift
  local start=$SECONDS
  if timeout 600 "$pgbench" -i -s 1 "$@" >"$work/init-$name.log" 2>&1; then
    echo "-- $name: pgbench -i -s 1 in $((SECONDS - start)) s: $(grep '^done in' "$work/init-$name.log")"
  else
    sed 's/^/   /' "$work/init-$name.log"
    echo "-- pgbench -i failed on $name (above, verbatim)"
    return 1
  fi
}

summary=()
# run NAME MODE CONN...: one pgbench window; SERIALIZABLE on both (MeldDB's only level; PGOPTIONS for PostgreSQL)
run() {
  local name="$1" mode="$2"
  shift 2
  local opts=""
  [[ "$name" == PostgreSQL ]] && opts="-c default_transaction_isolation=serializable"
  local cmd=("$pgbench" -n -c 4 -j 2 -T "$pgbench_seconds" -M "$mode" --max-tries=10 --failures-detailed
    -b tpcb-like "$@")
  echo "-- $name, -M $mode: ${opts:+PGOPTIONS='$opts' }${cmd[*]/#$work\//}"
  PGOPTIONS="$opts" timeout $((pgbench_seconds + 120)) "${cmd[@]}" >"$work/pgbench.log" 2>&1
  local rc=$?
  grep -v '^pgbench (' "$work/pgbench.log" | sed 's/^/   /'
  local tps failed retried
  tps="$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/pgbench.log")"
  failed="$(sed -n 's/^number of failed transactions: \(.*\)/\1/p' "$work/pgbench.log")"
  retried="$(sed -n 's/^total number of retries: \(.*\)/\1/p' "$work/pgbench.log")"
  summary+=("| $name | $mode | ${tps:-FAILED (exit $rc)} | ${failed:-} | ${retried:-} |")
}

meld_ok=0
pg_ok=0
init MeldDB "${meld_conn[@]}" && meld_ok=1
if [[ -n "$pg_port" && -n "$pg_url" ]]; then
  init PostgreSQL "${pg_conn[@]}" && pg_ok=1
fi
for mode in simple prepared; do
  (( meld_ok )) && run MeldDB "$mode" "${meld_conn[@]}"
  (( pg_ok )) && run PostgreSQL "$mode" "${pg_conn[@]}"
done

echo
echo "pgbench, 4 clients, 2 threads, ${pgbench_seconds} s, scale 1, SERIALIZABLE, --max-tries=10:"
echo "| server | query mode | tps | failed transactions | retries |"
echo "| --- | --- | ---: | ---: | ---: |"
printf '%s\n' "${summary[@]}"
exit "$java_rc"
