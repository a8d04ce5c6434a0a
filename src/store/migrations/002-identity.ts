/**
 * @module Migration 2: secrets at rest (ciphertext only), users, memberships, sign-in sessions,
 * refresh tokens and API tokens (hashes only), access-token signing keys, the audit log.
 */
export const IDENTITY_MIGRATION = `
  CREATE TABLE secrets (
    tenant TEXT NOT NULL,
    purpose TEXT NOT NULL,
    name TEXT NOT NULL,
    key_id TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tenant, purpose, name)
  );
  CREATE INDEX secrets_by_key ON secrets (key_id);

  -- The master key the last rotation (or first seal) made active, so a process holding an
  -- older keyring notices and reloads it instead of sealing under a key about to be dropped.
  CREATE TABLE master_key_state (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    active_key_id TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL COLLATE NOCASE UNIQUE,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE memberships (
    tenant TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    created_at TEXT NOT NULL,
    PRIMARY KEY (tenant, user_id)
  );
  CREATE INDEX memberships_by_user ON memberships (user_id);

  CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tenant TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    client_address TEXT,
    created_at TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    revoked_at TEXT,
    revoked_reason TEXT
  );
  CREATE INDEX auth_sessions_by_user ON auth_sessions (user_id);

  CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    used_at TEXT
  );
  CREATE INDEX refresh_tokens_by_session ON refresh_tokens (session_id);

  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
    token_hash TEXT NOT NULL UNIQUE,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    last_used_at TEXT,
    revoked_at TEXT
  );
  CREATE INDEX api_tokens_by_tenant ON api_tokens (tenant, created_at, id);

  -- Public halves only; each private key is a secret (purpose 'signing-key', tenant '*').
  -- retired_at may lie ahead: a superseded key verifies until the tokens it signed expire.
  CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY,
    alg TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    created_at TEXT NOT NULL,
    retired_at TEXT
  );

  CREATE TABLE audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tenant TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX audit_log_by_tenant ON audit_log (tenant, id);
  `;
