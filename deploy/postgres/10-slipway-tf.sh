#!/bin/sh
# Creates the role and database that hold slipway's Terraform state (pg backend). CREATEROLE:
# slipway makes one role per instance for its terraform, which reaches only that instance's state
# (an existing server: ALTER ROLE slipway_tf CREATEROLE).
# The postgres image runs this once, when it initialises an empty data directory.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
	-v pw="${SLIPWAY_TF_PG_PASSWORD:?SLIPWAY_TF_PG_PASSWORD must be set}" <<'SQL'
CREATE ROLE slipway_tf LOGIN CREATEROLE PASSWORD :'pw';
CREATE DATABASE slipway_tf OWNER slipway_tf;
SQL
