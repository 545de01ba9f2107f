// Runs one SQL script in a DuckDB database file (npm @duckdb/node-api) with the script's folder
// as the working directory, then, if a query is given, prints its rows as one JSON line.
// Usage: node consumer_duckdb.mjs DB SCRIPT [QUERY]
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const [dbPath, script, query] = process.argv.slice(2).map((a, i) => (i < 2 ? resolve(a) : a));
const db = await DuckDBInstance.create(dbPath, { threads: '1' });
const con = await db.connect();
process.chdir(dirname(script));
await con.runAndReadAll(readFileSync(script, 'utf8'));
if (query) {
  const reader = await con.runAndReadAll(query);
  process.stdout.write(JSON.stringify(reader.getRowsJson()) + '\n');
}
