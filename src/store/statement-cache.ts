/**
 * @module A connection's prepared statements, one per SQL text (cairn's store and the sandbox cloud's).
 */
import type Database from 'better-sqlite3';

/** Prepares each SQL text once per connection (preparing costs more than running most of ours). */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
