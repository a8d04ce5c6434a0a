/**
 * @module The sandbox file's first schema (user_version 1): servers, the databases and apps they
 * host. Kept as it shipped, so every file — new or old — reaches today's schema by the same steps.
 */

export const SCHEMA_V1 = `
CREATE TABLE servers (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  region TEXT NOT NULL,
  size TEXT NOT NULL,
  image TEXT NOT NULL,
  power TEXT NOT NULL CHECK (power IN ('running', 'stopped')),
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE databases (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE RESTRICT,
  type TEXT NOT NULL CHECK (type IN ('postgresql', 'mongodb')),
  version TEXT NOT NULL,
  engine_version TEXT NOT NULL,
  storage_gb INTEGER,
  username TEXT NOT NULL,
  password TEXT NOT NULL,
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
);
CREATE TABLE apps (
  id TEXT PRIMARY KEY,
  client_token TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  server_id TEXT NOT NULL REFERENCES servers(id) ON DELETE RESTRICT,
  config_json TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'stopped')),
  release INTEGER NOT NULL,
  release_digest TEXT NOT NULL,
  busy_status TEXT,
  busy_until_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);
CREATE INDEX databases_server ON databases(server_id);
CREATE INDEX apps_server ON apps(server_id);
`;
