#!/bin/sh
# The official image's start-up, in short: a first start makes the cluster, the user, the database,
# and runs the init scripts on a server that listens on no TCP port; then PostgreSQL itself.
set -eu
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
# Flags alone ("-c max_connections=30") are postgres's, as the official image reads them.
case "${1:-}" in -*) set -- postgres "$@" ;; esac
if [ "${1:-postgres}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}" "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
    echo "error: set POSTGRES_PASSWORD (or POSTGRES_HOST_AUTH_METHOD=trust), as with the official image" >&2
    exit 1
  fi
  mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
  pw=$(mktemp) && printf '%s' "${POSTGRES_PASSWORD:-}" > "$pw" && chown postgres "$pw"
  # initdb refuses an empty password file: with trust and no password, none is set.
  pwfile=""; [ -n "${POSTGRES_PASSWORD:-}" ] && pwfile="--pwfile=$pw"
  as_pg initdb --username="$POSTGRES_USER" $pwfile --auth-local=trust --auth-host="$POSTGRES_HOST_AUTH_METHOD" \
    -D "$PGDATA" >/dev/null
  rm -f "$pw"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all $POSTGRES_HOST_AUTH_METHOD" >> "$PGDATA/pg_hba.conf"
  as_pg pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$POSTGRES_DB" != postgres ]; then
    as_pg psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d postgres -qc "CREATE DATABASE \"$POSTGRES_DB\""
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sql) echo "running $f"; as_pg psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -qf "$f" ;;
      *.sh) echo "running $f"; . "$f" ;;
    esac
  done
  as_pg pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
if [ "${1:-postgres}" = postgres ]; then
  shift || true
  exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -D "$PGDATA" "$@"
fi
exec "$@"
