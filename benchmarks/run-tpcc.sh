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

# A TCP port nothing listens on, on loopback.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# ---------------------------------------------------------------------------------------------- PostgreSQL
pg_url=""
pg_port=""
if [[ -x "$pg_bin/initdb" && -x "$pg_bin/pg_ctl" ]] && { [[ "$(id -u)" != 0 ]] || id postgres >/dev/null 2>&1; }; then
  mkdir -p "$work/pg"
  [[ "$(id -u)" == 0 ]] && chown postgres: "$work/pg"
  pg_port="$(free_port)"
  echo "PostgreSQL: $("$pg_bin/postgres" --version), throwaway cluster in $pg_data on 127.0.0.1:$pg_port"
  if as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres -A trust -E UTF8 --locale=C >"$work/pg/initdb.log" 2>&1; then
    pg_started=1
    if as_pg "$pg_bin/pg_ctl" -D "$pg_data" -l "$work/pg/server.log" -w -t 60 \
        -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work/pg" start >/dev/null; then
      pg_url="jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres"
      as_pg "$pg_bin/psql" -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -At \
        -c "SELECT 'PostgreSQL settings: fsync=' || current_setting('fsync') || ', synchronous_commit=' \
            || current_setting('synchronous_commit') || ', shared_buffers=' || current_setting('shared_buffers')"
    else
      echo "PostgreSQL did not start; running without it. Its log:"
      cat "$work/pg/server.log"
    fi
  else
    echo "initdb failed; running without PostgreSQL:"
    cat "$work/pg/initdb.log"
  fi
else
  echo "PostgreSQL 15 not found in $pg_bin (or no postgres OS user): running without the PostgreSQL target;" \
    "this script installs nothing"
fi

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
