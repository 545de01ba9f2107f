// Runs one benchmark job in DuckDB (npm @duckdb/node-api) and prints its result rows as
// tab-separated lines: window start, window end, key, count, sum, avg (empty when not computed).
// Usage: node duckdb_job.mjs JOB FILE THREADS
import { DuckDBInstance } from '@duckdb/node-api';

const [job, file, threads] = process.argv.slice(2);
const src = `read_ndjson('${file}', columns={ts:'TIMESTAMP', service:'VARCHAR', host:'VARCHAR', user:'VARCHAR', bytes:'BIGINT', latency_ms:'DOUBLE'})`;
const queries = {
  // 1: tumbling 1m by service: count, sum(bytes), avg(latency_ms)
  '1': `SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, ws + INTERVAL 1 MINUTE AS we, service, count(*), sum(bytes), avg(latency_ms)
        FROM ${src} GROUP BY ALL`,
  // 2: the same over sliding 1h windows every minute: minute buckets, then 60 windows each
  '2': `WITH m AS (SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS m, service, count(*) AS n, sum(bytes) AS s, sum(latency_ms) AS l
                   FROM ${src} GROUP BY ALL)
        SELECT m - INTERVAL 1 MINUTE * k AS ws, ws + INTERVAL 1 HOUR AS we, service, sum(n), sum(s), sum(l) / sum(n)
        FROM m, range(0, 60) t(k) GROUP BY ALL`,
  // 3: count per user per minute
  '3': `SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, ws + INTERVAL 1 MINUTE AS we, user, count(*), NULL, NULL
        FROM ${src} GROUP BY ALL`,
  // 4: sessions per user, 30 s gap
  '4': `WITH g AS (SELECT user, ts, CASE WHEN ts - lag(ts) OVER (PARTITION BY user ORDER BY ts) <= INTERVAL 30 SECOND THEN 0 ELSE 1 END AS new
                   FROM ${src}),
             s AS (SELECT user, ts, sum(new) OVER (PARTITION BY user ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM g)
        SELECT min(ts), max(ts) + INTERVAL 30 SECOND, user, count(*), NULL, NULL FROM s GROUP BY user, sid`,
  // 5: count per host per second
  '5': `SELECT time_bucket(INTERVAL 1 SECOND, ts) AS ws, ws + INTERVAL 1 SECOND AS we, host, count(*), NULL, NULL
        FROM ${src} GROUP BY ALL`,
  '6': `SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, ws + INTERVAL 1 MINUTE AS we, service, count(*), sum(bytes), avg(latency_ms)
        FROM ${src} GROUP BY ALL`,
};
const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await db.connect();
const reader = await con.runAndReadAll(queries[job]);
const out = [];
for (const row of reader.getRowsJson()) out.push(row.map((v) => (v === null ? '' : String(v))).join('\t'));
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
