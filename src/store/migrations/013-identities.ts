/**
 * @module Migration 13: sign-in through identity providers. `identities` links a provider's
 * account (provider + subject) to a cairn user; `sign_in_states` holds a started sign-in
 * (single use, hashed `state`, the PKCE verifier, nonce and where the browser goes after);
 * `sign_in_codes` holds the one-time codes a redirect carries to `POST /auth/exchange`
 * (hashed, short-lived). A user made by sign-in has no password: `password_hash` is ''.
 */
export const IDENTITIES_MIGRATION = `
  CREATE TABLE identities (
    id TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    UNIQUE (provider, subject)
  );
  CREATE INDEX identities_by_user ON identities (user_id);

  CREATE TABLE sign_in_states (
    state_hash TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    code_verifier TEXT NOT NULL,
    nonce TEXT,
    redirect_uri TEXT,
    tenant_name TEXT,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX sign_in_states_by_expiry ON sign_in_states (expires_at);

  CREATE TABLE sign_in_codes (
    code_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tenant_name TEXT,
    expires_at TEXT NOT NULL
  );
`;
