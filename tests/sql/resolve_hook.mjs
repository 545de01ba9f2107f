// A module resolve hook for dt-sql-parser, whose ES modules are written for bundlers: their
// imports name files without ".js" and folders without "/index.js", which Node does not
// resolve by itself. Tries both after Node's own resolution fails.
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (e) {
    if (!specifier.startsWith('.')) throw e;
    for (const suffix of ['.js', '/index.js']) {
      try {
        return await next(specifier + suffix, context);
      } catch {
        // the next suffix
      }
    }
    throw e;
  }
}
