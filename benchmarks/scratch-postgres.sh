# Sourced by run-sql-benchmark.sh and run-tpcc.sh: free_port, and a throwaway PostgreSQL 15 cluster on loopback
# when initdb/pg_ctl are in $pg_bin (sets pg_url, pg_port, pg_started). Expects work, pg_bin, pg_data and as_pg from
# the sourcing script, whose cleanup stops the cluster.

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
# Durable defaults, except room for SERIALIZABLE's predicate locks: with the default 64 per transaction a loaded
# machine made whole PostgreSQL rounds fail with "out of shared memory" (SQLSTATE 53200), which measured nothing.
pg_extra="-c max_pred_locks_per_transaction=256"
if [[ -x "$pg_bin/initdb" && -x "$pg_bin/pg_ctl" ]] && { [[ "$(id -u)" != 0 ]] || id postgres >/dev/null 2>&1; }; then
  mkdir -p "$work/pg"
  [[ "$(id -u)" == 0 ]] && chown postgres: "$work/pg"
  pg_port="$(free_port)"
  echo "PostgreSQL: $("$pg_bin/postgres" --version), throwaway cluster in $pg_data on 127.0.0.1:$pg_port"
  if as_pg "$pg_bin/initdb" -D "$pg_data" -U postgres -A trust -E UTF8 --locale=C >"$work/pg/initdb.log" 2>&1; then
    pg_started=1
    if as_pg "$pg_bin/pg_ctl" -D "$pg_data" -l "$work/pg/server.log" -w -t 60 \
        -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work/pg $pg_extra" start >/dev/null; then
      pg_url="jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres"
      as_pg "$pg_bin/psql" -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -At \
        -c "SELECT 'PostgreSQL settings: fsync=' || current_setting('fsync') || ', synchronous_commit=' \
            || current_setting('synchronous_commit') || ', shared_buffers=' || current_setting('shared_buffers') \
            || ', max_pred_locks_per_transaction=' || current_setting('max_pred_locks_per_transaction')"
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
