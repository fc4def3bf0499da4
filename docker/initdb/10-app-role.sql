-- Runs once, as the PostgreSQL superuser, when the compose database is first created
-- (docker-entrypoint-initdb.d, in the database POSTGRES_DB). docs/adr/0031.
--
-- The service connects as `receivables_app`: a login role that is not a superuser, cannot
-- create databases or roles, does not bypass row security, and owns exactly one schema of the
-- same name, where its migrations create every table, function and trigger. It has no rights
-- on the `public` schema (PostgreSQL 15+ grants CREATE there to nobody) or on other databases.
-- No migration needs more: they create tables, indexes and trusted-language (plpgsql, sql)
-- functions only, and no extension.
--
-- The password comes from the environment of the postgres container (APP_DB_PASSWORD).
\set ON_ERROR_STOP on
\getenv app_password APP_DB_PASSWORD

CREATE ROLE receivables_app LOGIN PASSWORD :'app_password'
  NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;

CREATE SCHEMA receivables_app AUTHORIZATION receivables_app;

DO $$
BEGIN
  -- Only the app role (and the superuser) may connect to this database.
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO receivables_app', current_database());
  -- Unqualified names resolve to its own schema only, never to public.
  EXECUTE format('ALTER ROLE receivables_app IN DATABASE %I SET search_path = receivables_app', current_database());
  -- A session of this role left idle inside a transaction (psql, a tool) is closed after a
  -- minute instead of holding its locks. The service's own pools set it and their statement and
  -- lock timeouts per connection (docs/adr/0030); statement and lock timeouts are not set for the
  -- role, so migrations, which run as it, keep no limit.
  EXECUTE format('ALTER ROLE receivables_app IN DATABASE %I SET idle_in_transaction_session_timeout = %L', current_database(), '60s');
END
$$;

REVOKE ALL ON SCHEMA public FROM PUBLIC;
