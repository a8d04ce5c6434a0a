/**
 * @module Watching a PostgreSQL store converge, cheaply: one query every 500 ms (not one per
 * resource) counting the resources that are Ready at their generation, as `cairn apply --wait`
 * judges them (src/reconcile/status-draft.ts isReadyAt), and the others by phase.
 */
import pg from 'pg';

const POLL_MS = 500;
/**
 * No resource turning Ready for this long means it is stuck (an invalid Provider, say): stop waiting.
 * Long enough for a big apply on PostgreSQL: its one transaction holds the write lock for seconds,
 * and replicas whose shard leases ran out meanwhile take them again before anything is Ready.
 */
const STALL_MS = 240_000;

/**
 * Resources, those Ready at their generation (a Ready condition with status True and
 * observed_generation = generation), and the rest by phase ('none' without a status row).
 */
const TALLY_SQL = `
  SELECT
    CASE
      WHEN s.observed_generation = r.generation AND s.conditions::jsonb @> '[{"type":"Ready","status":"True"}]'::jsonb THEN 'Ready'
      ELSE COALESCE(s.phase, 'none')
    END AS state,
    count(*)::int AS n
  FROM resources r LEFT JOIN resource_status s ON s.uid = r.uid
  WHERE r.deletion_timestamp IS NULL
  GROUP BY 1`;

export interface StoreTally {
  total: number;
  ready: number;
  /** Resources not yet Ready, by phase. */
  notReady: Record<string, number>;
}

export interface Convergence {
  /** From `since` until the poll that saw every expected resource Ready. */
  wallMs: number;
  polls: number;
}

export interface ConvergenceWatch {
  /**
   * Resolves once `expected` resources are all Ready; throws after `timeoutMs`, or when none has
   * turned Ready for a minute, saying what it last saw.
   */
  converged(expected: number, since: number, timeoutMs: number): Promise<Convergence>;
  close(): Promise<void>;
}

/** The store's resources right now, from one query. */
async function tally(client: pg.Client): Promise<StoreTally> {
  const rows = (await client.query<{ state: string; n: number }>(TALLY_SQL)).rows;
  const notReady: Record<string, number> = {};
  let ready = 0;
  let total = 0;
  for (const row of rows) {
    total += row.n;
    if (row.state === 'Ready') ready += row.n;
    else notReady[row.state] = row.n;
  }
  return { total, ready, notReady };
}

function describe(seen: StoreTally): string {
  const rest = Object.entries(seen.notReady).map(([phase, n]) => `${n} ${phase}`);
  return `${seen.total} resources, ${seen.ready} Ready${rest.length > 0 ? `, ${rest.join(', ')}` : ''}`;
}

/** Opens one connection (application_name cairn-bench) to the store's database at `url`. */
export async function watchConvergence(url: string): Promise<ConvergenceWatch> {
  const client = new pg.Client({ connectionString: url, application_name: 'cairn-bench' });
  await client.connect();
  return {
    async converged(expected: number, since: number, timeoutMs: number): Promise<Convergence> {
      let polls = 0;
      let readySoFar = 0;
      let progressAt = performance.now();
      for (;;) {
        const seen = await tally(client);
        const now = performance.now();
        polls++;
        if (seen.total >= expected && seen.ready >= expected) return { wallMs: now - since, polls };
        if (seen.ready > readySoFar) {
          readySoFar = seen.ready;
          progressAt = now;
        }
        if (now - since > timeoutMs) {
          throw new Error(`not converged within ${Math.round(timeoutMs / 1000)} s: expected ${expected} Ready, saw ${describe(seen)}`);
        }
        if (now - progressAt > STALL_MS) {
          throw new Error(`stuck: no resource turned Ready for ${STALL_MS / 1000} s; expected ${expected} Ready, saw ${describe(seen)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    close: () => client.end(),
  };
}
