/**
 * @module Migration 18: the dashboard's preferences per signed-in subject (`user:<id>` or
 * `token:<id>`): which widgets are shown and in what order, as the JSON the dashboard wrote.
 */
export const DASHBOARD_PREFERENCES_MIGRATION = `
  CREATE TABLE dashboard_preferences (
    subject TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    preferences TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
`;
