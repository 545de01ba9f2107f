// Runs DuckDB scripts (npm @duckdb/node-api) and prints each one's result as one JSON line:
// {"columns":[...],"rows":[[...],...]} or {"error":"..."}. JSON columns are parsed into values;
// integers too wide for a double stay strings.
// Usage: node duckdb_run.mjs DIR/query.sql... (each script runs with its own folder as the
// working directory, so relative input paths resolve as logtide resolved them). After the
// scripts' lines, one more: {"tables":[...]}, the tables they created (a script only reads and
// makes temporary macros: any table is a statement that got out of a comment, issue 28).
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
for (const file of process.argv.slice(2)) {
  process.chdir(dirname(file));
  try {
    const reader = await con.runAndReadAll(readFileSync(file, 'utf8'));
    const types = reader.columnTypes().map((t) => t.alias ?? t.toString());
    const rows = reader.getRowsJson().map((row) =>
      row.map((v, i) => (v !== null && types[i] === 'JSON' ? JSON.parse(v) : v)));
    process.stdout.write(JSON.stringify({ columns: reader.columnNames(), types, rows }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e.message) }) + '\n');
  }
}
const tables = await con.runAndReadAll('SELECT table_name FROM duckdb_tables() ORDER BY 1');
process.stdout.write(JSON.stringify({ tables: tables.getRowsJson().map((r) => r[0]) }) + '\n');
