// Parses Flink SQL scripts with dt-sql-parser's FlinkSQL grammar (npm dt-sql-parser) and prints
// one JSON line per script: {"file":...,"errors":[{"line":N,"message":...},...]}.
// Usage: node flink_parse.mjs FILE...
import { register } from 'node:module';
import { readFileSync } from 'node:fs';

register('./resolve_hook.mjs', import.meta.url);
const { FlinkSQL } = await import('dt-sql-parser');
const parser = new FlinkSQL();
for (const file of process.argv.slice(2)) {
  const errors = parser.validate(readFileSync(file, 'utf8'))
    .map((e) => ({ line: e.startLine, message: e.message }));
  process.stdout.write(JSON.stringify({ file, errors }) + '\n');
}
