#!/bin/sh
# Creates Temporal's persistence and visibility databases if missing and brings their schemas to
# the image's release with temporal-sql-tool (admin-tools ships it and the schema directories).
# Idempotent: create-database ignores an existing database, setup-schema -v 0.0 keeps a newer
# version, and update-schema applies only the versions a database lacks. Run on every `up`.
set -eu
: "${SQL_HOST:?SQL_HOST must be set}" "${SQL_USER:?SQL_USER must be set}" "${SQL_PASSWORD:?SQL_PASSWORD must be set}"
export SQL_PLUGIN="${SQL_PLUGIN:-postgres12}" SQL_PORT="${SQL_PORT:-5432}"
schema="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"
for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
	db="${pair%%:*}"
	dir="${schema}/${pair#*:}/versioned"
	temporal-sql-tool --db "$db" create-database
	temporal-sql-tool --db "$db" setup-schema -v 0.0
	temporal-sql-tool --db "$db" update-schema -d "$dir"
	echo "temporal schema of $db is current ($dir)"
done
