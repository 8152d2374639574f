#!/bin/sh
# Runs once, when the postgres volume is first initialised (/docker-entrypoint-initdb.d), as the
# image's superuser: the same roles `nocturne stack up` makes (src/stack/postgres-roles.ts).
# nocturne_owner owns the database and runs the migrations; nocturne, the worker's runtime
# login, is NOSUPERUSER NOBYPASSRLS and acts as the app role nocturne_app only (docs/SECURITY.md).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v owner_password="$NOCTURNE_OWNER_PASSWORD" -v runtime_password="$NOCTURNE_DB_PASSWORD" <<'SQL'
CREATE ROLE nocturne_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE nocturne_owner LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE PASSWORD :'owner_password';
CREATE ROLE nocturne LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE INHERIT PASSWORD :'runtime_password';
GRANT nocturne_app TO nocturne;
GRANT nocturne_app TO nocturne_owner;
CREATE DATABASE nocturne OWNER nocturne_owner;
\connect nocturne
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;
SQL
