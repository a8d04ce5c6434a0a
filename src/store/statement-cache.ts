/**
 * @module A connection's prepared statements, one per SQL text (cairn's store and the sandbox cloud's).
 */
import type { SqlConnection, SqlStatement } from './connection.js';

/** Prepares each SQL text once per connection (preparing costs more than running most of ours). */
export class StatementCache {
  private readonly statements = new Map<string, SqlStatement>();

  constructor(private readonly db: SqlConnection) {}

  get(sql: string): SqlStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
