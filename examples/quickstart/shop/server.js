// The quickstart's shop: counts its visitors in PostgreSQL (DATABASE_URL, injected by cairn)
// and answers on PORT (chosen by cairn; the app's stable URL is cairn's endpoint in front of it).
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const ready = pool.query('create table if not exists visits (id bigserial primary key, at timestamptz not null default now())');

http
  .createServer(async (req, res) => {
    try {
      await ready;
      if (req.url === '/healthz') {
        await pool.query('select 1');
        res.end('ok\n');
        return;
      }
      await pool.query('insert into visits default values');
      const { rows } = await pool.query('select count(*)::int as visits from visits');
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(`Hello from the shop, served by cairn. Visits so far: ${rows[0].visits}\n`);
    } catch (error) {
      res.statusCode = 503;
      res.end(`the database is not reachable: ${error.message}\n`);
    }
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log(`shop listening on port ${process.env.PORT}`));
