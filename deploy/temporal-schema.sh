#!/bin/sh
# Creates (or upgrades) Temporal's persistence and visibility schemas on PostgreSQL.
# Idempotent: create-database tolerates an existing database, update-schema is incremental.
set -eu
SCHEMA=/etc/temporal/schema/postgresql/v12
tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_HOST" -p 5432 -u "$POSTGRES_USER" --pw "$POSTGRES_PASSWORD" "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" create-database || true
done
tool --db temporal setup-schema -v 0.0
tool --db temporal update-schema -d "$SCHEMA/temporal/versioned"
tool --db temporal_visibility setup-schema -v 0.0
tool --db temporal_visibility update-schema -d "$SCHEMA/visibility/versioned"
