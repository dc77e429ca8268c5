#!/usr/bin/env bash
# Starts a throwaway PostgreSQL for Warden's PostgreSQL store tests and prints its connection URL on
# stdout (that line only; progress goes to stderr):
#
#   export WARDEN_TEST_PG_URL=$(bash scripts/start-test-postgres.sh)
#   bash scripts/start-test-postgres.sh stop      # stops it and deletes its data
#
# The server listens on 127.0.0.1 only, port ${WARDEN_TEST_PG_PORT:-54329}, keeps its data in
# ${WARDEN_TEST_PG_DIR:-${TMPDIR:-/tmp}/warden-test-postgres-<port>}, trusts local connections (it is for
# tests, never for data that matters) and trades durability for speed (fsync off). Running it again while
# the server is up just prints the URL. PostgreSQL refuses to run as root, so as root the server runs as
# the `postgres` system user (created if missing); without PostgreSQL binaries it installs the
# `postgresql` package when it can (root with apt-get).
set -euo pipefail

PORT="${WARDEN_TEST_PG_PORT:-54329}"
BASE="${WARDEN_TEST_PG_DIR:-${TMPDIR:-/tmp}/warden-test-postgres-${PORT}}"
DATA="${BASE}/data"
LOG="${BASE}/postgres.log"
ROLE="warden"
DATABASE="${WARDEN_TEST_PG_DATABASE:-warden_test}"
URL="postgres://${ROLE}@127.0.0.1:${PORT}/${DATABASE}"

log() { echo "start-test-postgres: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

find_bin_dir() {
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [[ -n "${dir}" && -x "${dir}/pg_ctl" ]]; then
    echo "${dir}"
    return 0
  fi
  if command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(readlink -f "$(command -v pg_ctl)")"
    return 0
  fi
  return 1
}

BIN="$(find_bin_dir || true)"
if [[ -z "${BIN}" ]]; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "no PostgreSQL binaries found; installing the postgresql package"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    BIN="$(find_bin_dir || true)"
  fi
  [[ -n "${BIN}" ]] || die "PostgreSQL is not installed (looked in /usr/lib/postgresql/*/bin and PATH); install it or run as root with apt-get available"
fi

# PostgreSQL will not run as root: run its programs as an unprivileged user then.
RUN_USER=""
if [[ "$(id -u)" -eq 0 ]]; then
  RUN_USER="postgres"
  if ! id -u "${RUN_USER}" >/dev/null 2>&1; then
    log "creating system user ${RUN_USER}"
    useradd --system --no-create-home --shell /usr/sbin/nologin "${RUN_USER}" >&2 ||
      adduser --system --no-create-home "${RUN_USER}" >&2
  fi
fi

as_server_user() {
  if [[ -z "${RUN_USER}" ]]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    runuser -u "${RUN_USER}" -- "$@"
  else
    su -s /bin/sh "${RUN_USER}" -c "$(printf '%q ' "$@")"
  fi
}

is_running() {
  [[ -f "${DATA}/PG_VERSION" ]] && as_server_user "${BIN}/pg_ctl" -D "${DATA}" status >/dev/null 2>&1
}

if [[ "${1:-}" == "stop" ]]; then
  if is_running; then
    as_server_user "${BIN}/pg_ctl" -D "${DATA}" -m fast -w stop >&2
  fi
  rm -rf "${BASE}"
  log "stopped; removed ${BASE}"
  exit 0
fi

if is_running; then
  log "already running (data in ${DATA})"
else
  if [[ ! -f "${DATA}/PG_VERSION" ]]; then
    rm -rf "${BASE}"
    mkdir -p "${BASE}"
    [[ -z "${RUN_USER}" ]] || chown "${RUN_USER}" "${BASE}"
    log "initialising a cluster in ${DATA} (PostgreSQL binaries in ${BIN})"
    as_server_user "${BIN}/initdb" -D "${DATA}" --username="${ROLE}" --auth=trust --encoding=UTF8 \
      --locale=C >"${BASE}/initdb.log" 2>&1 || {
      cat "${BASE}/initdb.log" >&2
      die "initdb failed"
    }
  fi
  log "starting on 127.0.0.1:${PORT}"
  as_server_user "${BIN}/pg_ctl" -D "${DATA}" -l "${LOG}" -w -t 60 \
    -o "-p ${PORT} -k ${BASE} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >&2 || {
    tail -n 30 "${LOG}" >&2 || true
    die "the server did not start (is port ${PORT} taken? set WARDEN_TEST_PG_PORT)"
  }
fi

for _ in $(seq 1 60); do
  if "${BIN}/pg_isready" -q -h 127.0.0.1 -p "${PORT}" -U "${ROLE}"; then
    break
  fi
  sleep 1
done
"${BIN}/pg_isready" -q -h 127.0.0.1 -p "${PORT}" -U "${ROLE}" || die "the server is not accepting connections on 127.0.0.1:${PORT}"

exists="$("${BIN}/psql" -h 127.0.0.1 -p "${PORT}" -U "${ROLE}" -d postgres -tAc \
  "select 1 from pg_database where datname = '${DATABASE}'")"
if [[ "${exists}" != "1" ]]; then
  "${BIN}/createdb" -h 127.0.0.1 -p "${PORT}" -U "${ROLE}" "${DATABASE}" >&2
  log "created database ${DATABASE}"
fi

echo "${URL}"
