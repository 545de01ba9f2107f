// Runs one benchmark job in DuckDB (npm @duckdb/node-api) and prints its result rows as
// tab-separated lines: window start, window end, key, then the job's values. Jobs 1-6: count,
// sum, avg (empty when not computed). Job 7 (7a, 7d, 7c, 7ref): p50, p95, p99 of latency_ms and
// the distinct users; 7ref adds the count of events. Job 8 (8ref): the distinct users. Job 9:
// count, sum, avg of the 5xx events (WHERE); 9f: count and the 5xx count (FILTER).
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
// Job 7: p50, p95, p99 of latency_ms and distinct users per service per minute. One aggregate
// call computes the three quantiles (one sort or one digest), as logtide keeps one sketch.
const job7 = (quantiles, distinct) => `
  WITH g AS (SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, service,
                    ${quantiles}(latency_ms, [0.5, 0.95, 0.99]) AS q, ${distinct} AS d
             FROM ${src} GROUP BY ALL)
  SELECT ws, ws + INTERVAL 1 MINUTE, service, q[1], q[2], q[3], d FROM g`;
// 7a: DuckDB's sketches (t-digest and HyperLogLog); 7d and 7c: exact, quantile_disc (a value of
// the input) and quantile_cont (interpolated).
queries['7a'] = job7('approx_quantile', 'approx_count_distinct(user)');
queries['7d'] = job7('quantile_disc', 'count(DISTINCT user)');
queries['7c'] = job7('quantile_cont', 'count(DISTINCT user)');
// 7ref (the check, not timed): the exact values logtide's quantiles estimate, quantile_disc's
// (the value of rank ceil(Q * n), counted from 1: man page, AGGREGATES), the distinct users and
// the number of events.
queries['7ref'] = `
  WITH g AS (SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, service,
                    quantile_disc(latency_ms, [0.5, 0.95, 0.99]) AS q, count(DISTINCT user) AS d, count(*) AS n
             FROM ${src} GROUP BY ALL)
  SELECT ws, ws + INTERVAL 1 MINUTE, service, q[1], q[2], q[3], d, n FROM g`;
// 8ref (the check): exact distinct users per service over sliding 1h windows every minute: the
// distinct (minute, service, user) triples, each in the 60 windows that hold its minute.
queries['8ref'] = `
  WITH m AS (SELECT DISTINCT time_bucket(INTERVAL 1 MINUTE, ts) AS m, service, user FROM ${src})
  SELECT m - INTERVAL 1 MINUTE * k AS ws, ws + INTERVAL 1 HOUR AS we, service, count(DISTINCT user)
  FROM m, range(0, 60) t(k) GROUP BY ALL`;
// Job 9 (issue 19) reads status too; jobs 1-8 keep their column list.
const src9 = `read_ndjson('${file}', columns={ts:'TIMESTAMP', service:'VARCHAR', status:'BIGINT', bytes:'BIGINT', latency_ms:'DOUBLE'})`;
// 9: job 1 on the 5xx events only, as `--where 'status >= 500'`.
queries['9'] = `SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, ws + INTERVAL 1 MINUTE AS we, service, count(*), sum(bytes), avg(latency_ms)
        FROM ${src9} WHERE status >= 500 GROUP BY ALL`;
// 9f: every event's count and the 5xx count, as `--agg 'count,errors=count() filter status >= 500'`
// (the error ratio is errors / count).
queries['9f'] = `SELECT time_bucket(INTERVAL 1 MINUTE, ts) AS ws, ws + INTERVAL 1 MINUTE AS we, service, count(*), count(*) FILTER (WHERE status >= 500)
        FROM ${src9} GROUP BY ALL`;
const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const con = await db.connect();
const reader = await con.runAndReadAll(queries[job]);
const out = [];
for (const row of reader.getRowsJson()) out.push(row.map((v) => (v === null ? '' : String(v))).join('\t'));
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
