#!/usr/bin/env bash
# The order-entry benchmark of issue 21 (TPC-C's five transactions), with PostgreSQL 15 as a peer:
#   1. creates a throwaway PostgreSQL 15 cluster (initdb as the postgres OS user, default durable settings, a free
#      loopback port, its unix socket in the temp dir) if the binaries are there; installs nothing;
#   2. runs io.meldb.bench.tpcc.TpccBenchmark (MeldDB embedded through pgjdbc with SQL increments on and off, H2's
#      TCP server, and that cluster) with the arguments given to this script;
#   3. always stops the cluster and deletes the temp dir (trap), also on failure or Ctrl-C.
# Usage (after ./mvnw -B -q -pl benchmarks -am package -DskipTests):
#   benchmarks/run-tpcc.sh --warehouses 1,4 --seconds 8 --rounds 2 --payment-reads both
# Environment: PG_BIN (/usr/lib/postgresql/15/bin), JAVA_OPTS (-Xmx2g). docs/perf/tpcc.md has the figures.
set -uo pipefail # no -e: a failing step is reported and the trap always cleans up

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/benchmarks/target/benchmarks.jar"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
# shellcheck disable=SC2207  # bin/jvm-flags is a whitespace-separated list of flags
java_flags=($(cat "$root/bin/jvm-flags") ${JAVA_OPTS:--Xmx2g})

if [[ ! -f "$jar" ]]; then
  echo "run-tpcc: $jar is missing; build it: ./mvnw -B -q -pl benchmarks -am package -DskipTests" >&2
  exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/meldb-tpcc.XXXXXX")"
chmod 755 "$work" # the postgres user must reach its data dir inside
pg_data="$work/pg/data"
pg_started=0
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
echo "== java ${java_flags[*]} -cp benchmarks/target/benchmarks.jar io.meldb.bench.tpcc.TpccBenchmark" \
  "${pg_url:+--pg-url $pg_url }$*"
# in the background, so that a signal reaches the trap (and the cleanup) at once
java "${java_flags[@]}" -cp "$jar" io.meldb.bench.tpcc.TpccBenchmark ${pg_url:+--pg-url "$pg_url"} "$@" &
java_pid=$!
wait "$java_pid"
java_rc=$?
java_pid=""
echo "TpccBenchmark exit status: $java_rc"
exit "$java_rc"
