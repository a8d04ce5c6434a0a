/**
 * @module Migration 11: the SSH host keys cairn pinned on first contact (trust on first use), one
 * per tenant and `host:port`, with when it was first seen. A changed key is refused until its
 * row is deleted.
 */
export const SSH_HOST_KEYS_MIGRATION = `
  CREATE TABLE ssh_host_keys (
    tenant TEXT NOT NULL,
    host_id TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    first_seen TEXT NOT NULL,
    PRIMARY KEY (tenant, host_id)
  );
`;
