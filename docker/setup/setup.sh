#!/bin/sh
# The one-shot set-up job of docker-compose.yml. Safe to run again: every step is idempotent.
#   1. install or upgrade the PgQue engine (the script itself refuses a downgrade)
#   2. a login role per connector, with only the grants it needs
#   3. the queues the connectors write to and read from
#   4. the connectors' passwords written where the worker's FileConfigProvider reads them
#   5. both connectors deployed (or updated) over Connect's REST API, then seen RUNNING
set -eu

CONFIG=/setup/config

log() { echo "setup: $*"; }
fail() { echo "setup: $*" >&2; exit 1; }

# retry TRIES COMMAND...: runs COMMAND every 2 s until it succeeds, at most TRIES times.
retry() {
  tries=$1
  shift
  i=1
  until "$@"; do
    [ "$i" -lt "$tries" ] || return 1
    i=$((i + 1))
    sleep 2
  done
}

# render FILE DB_USER: the "config" object of FILE, made to run in this stack:
# - its database and login (connection.url, connection.user) replaced by this stack's PostgreSQL
#   and the connector's own role, as a sample config points elsewhere;
# - its password left a config provider reference (refused otherwise): the worker resolves it from
#   the secrets file written below, so no password is stored in the connector's config;
# - its ${UPPER_CASE} placeholders filled in from the environment (the connector's own templates,
#   ${topic} or ${header:...}, stay);
# - a dead letter topic with one replica, as there is one broker (Connect asks for 3).
render() {
  jq --arg url "$PGQUE_JDBC_URL" --arg user "$2" '.config
    | with_entries(select(.key | (startswith("connection.") and . != "connection.password") | not))
    | if (.["connection.password"] // "${" | startswith("${")) then . else
        error("connection.password must be a config provider reference such as ${file:...}, not a password") end
    | walk(if type == "string" then
             gsub("\\$\\{(?<v>[A-Z][A-Z0-9_]*)\\}"; $ENV[.v] // error("no value in the environment for ${" + .v + "}"))
           else . end)
    | . + {"connection.url": $url, "connection.user": $user}
    | if has("errors.deadletterqueue.topic.name")
      then . + {"errors.deadletterqueue.topic.replication.factor": "1"} else . end' "$1"
}

# write_secrets: the connectors' passwords, as the properties file their configs' ${file:...}
# references name (PGQUE_SECRETS_FILE, on a volume the worker mounts read-only). Readable by the
# worker, which runs as another user than this job. Java properties: a backslash in a password
# would need doubling.
write_secrets() {
  mkdir -p "$(dirname "$PGQUE_SECRETS_FILE")"
  printf 'sink-password=%s\nsource-password=%s\n' "$SINK_DB_PASSWORD" "$SOURCE_DB_PASSWORD" > "$PGQUE_SECRETS_FILE"
  chmod 0644 "$PGQUE_SECRETS_FILE"
}

# queues: the queues the rendered config on stdin names: pgque.queue (a ${topic} template
# expanded over "topics") and the values of pgque.queue.map.
queues() {
  jq -r '(.topics // "" | split(",") | map(gsub("^\\s+|\\s+$"; "")) | map(select(. != ""))) as $topics
    | [ (.["pgque.queue"] // "" | select(. != "")
         | if contains("${topic}") then . as $q | $topics[] | . as $t | $q | gsub("\\$\\{topic\\}"; $t)
           else . end),
        (.["pgque.queue.map"] // "" | split(",")[] | select(contains(":")) | split(":")[1]) ]
    | unique[]'
}

plugins_listed() {
  plugins=$(curl -fsS "$CONNECT_URL/connector-plugins" 2>/dev/null) || return 1
  case "$plugins" in
    *PgQueSinkConnector*PgQueSourceConnector* | *PgQueSourceConnector*PgQueSinkConnector*) return 0 ;;
  esac
  return 1
}

running() {
  curl -fsS "$CONNECT_URL/connectors/$1/status" 2>/dev/null | jq -e \
    '.connector.state == "RUNNING" and (.tasks | length > 0) and all(.tasks[]; .state == "RUNNING")' >/dev/null
}

# deploy FILE DB_USER: creates or updates the connector of config/FILE, then waits until it and
# its tasks run.
deploy() {
  name=$(jq -r .name "$CONFIG/$1")
  render "$CONFIG/$1" "$2" \
    | curl -sS --fail-with-body -o /dev/null -X PUT -H 'Content-Type: application/json' --data @- \
        "$CONNECT_URL/connectors/$name/config" \
    || fail "Connect refused config/$1"
  log "deployed $name from config/$1"
  if ! retry 30 running "$name"; then
    curl -sS "$CONNECT_URL/connectors/$name/status" >&2
    fail "$name is not RUNNING"
  fi
}

log "installing the PgQue engine"
psql -v ON_ERROR_STOP=1 -q -o /dev/null -f /setup/pgque.sql
log "engine version $(psql -At -c 'select pgque.version()')"

log "login roles $SINK_DB_USER (pgque_writer) and $SOURCE_DB_USER (pgque_reader, pgque_ticker)"
PGOPTIONS='-c client_min_messages=warning' psql -v ON_ERROR_STOP=1 -q \
  -v sink_user="$SINK_DB_USER" -v sink_password="$SINK_DB_PASSWORD" \
  -v source_user="$SOURCE_DB_USER" -v source_password="$SOURCE_DB_PASSWORD" <<'SQL'
SELECT format('CREATE ROLE %I LOGIN', r) FROM (VALUES (:'sink_user'), (:'source_user')) AS v(r)
 WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r)
\gexec
ALTER ROLE :"sink_user" PASSWORD :'sink_password';
ALTER ROLE :"source_user" PASSWORD :'source_password';
-- The sink only produces. The source consumes, and runs the ticker and maintenance
-- (pgque.ticker.enabled=true), which takes pgque_ticker (tick and maintain, nothing else).
GRANT pgque_writer TO :"sink_user";
GRANT pgque_reader, pgque_ticker TO :"source_user";
SQL

# The sink's login may not create queues (that takes pgque_admin): create them here.
for file in pgque-sink.json pgque-source.json; do
  for queue in $(render "$CONFIG/$file" - | queues); do
    case "$queue" in
      *'${'*) fail "config/$file: cannot tell which queues $queue stands for; list the topics in \"topics\"" ;;
    esac
    log "queue $queue (config/$file)"
    echo "SELECT pgque.create_queue(:'queue');" | psql -v ON_ERROR_STOP=1 -q -o /dev/null -v queue="$queue"
  done
done

log "connector passwords into $PGQUE_SECRETS_FILE, for the worker's FileConfigProvider"
write_secrets

log "waiting for the Connect worker at $CONNECT_URL to list both PgQue plugins"
retry 90 plugins_listed || fail "the worker at $CONNECT_URL does not list both PgQue plugins"
deploy pgque-sink.json "$SINK_DB_USER"
deploy pgque-source.json "$SOURCE_DB_USER"
log "both connectors are RUNNING"
