// Runs SQL against wrangler's local D1 (the SQLite `wrangler pages dev` serves /mcp from), as `wrangler
// d1 execute --local` does, but an import's file in several transactions instead of one: SQLite starts
// its write-ahead log over only when a transaction begins after a checkpoint in the same process, and
// wrangler runs a whole file as one batch in a process of its own, so the log of a project's local D1
// grew by a whole import at every dev save (1.7 GB after some 90 saves at 1,000 items), and never
// shrank. Started by build/runtime/d1-import.ts as a process of its own, in a group its caller can end
// (with the workerd miniflare starts):
//
//   node d1-local.js --persist <dir> --id <database id> [--json] [--file <path>] [--command <sql>]
//
// `--persist`: the folder of wrangler's local D1 state (`<persist-to>/v3/d1`). The file runs first, in
// transactions of about a megabyte, then the command in one. With `--json`, prints
// each statement's result as `wrangler d1 execute --json` does, or `{ "error": { "text" } }`.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { splitStatements } from './d1-statements.js';

/** About this many characters of SQL to a transaction: the log then holds about one of them. */
const BATCH_CHARS = 1_000_000;

const args = process.argv.slice(2);
/** @param {string} name */
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const json = args.includes('--json');
const persist = option('--persist');
const id = option('--id');
const file = option('--file');
const command = option('--command');

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  if (json) process.stdout.write(`${JSON.stringify({ error: { text: message } })}\n`);
  else process.stderr.write(`✘ [ERROR] ${message}\n`);
  process.exit(1);
}

if (!persist || !id || (file === undefined && command === undefined)) {
  fail('usage: d1-local.js --persist <dir> --id <database id> [--json] [--file <path>] [--command <sql>]');
}

/** @type {string[]} */
let fromFile = [];
/** @type {string[]} */
let fromCommand = [];
try {
  if (file !== undefined) fromFile = splitStatements(readFileSync(file, 'utf8'));
  if (command !== undefined) fromCommand = splitStatements(command);
} catch (error) {
  fail(`cannot read the SQL: ${error instanceof Error ? error.message : String(error)}`);
}
try {
  // A folder that cannot be made would leave workerd, and this process, waiting for ever.
  mkdirSync(persist, { recursive: true });
} catch (error) {
  fail(
    `cannot make the local D1's folder ${persist}: ${/** @type {NodeJS.ErrnoException} */ (error).code ?? String(error)}`,
  );
}

// wrangler's own miniflare (a dependency of the site's wrangler, content-index's peer): the same
// workerd, the same SQLite, and the same file for the same database id as `wrangler pages dev`.
/** @type {typeof import('miniflare').Miniflare} */
let Miniflare;
try {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve('wrangler/package.json'));
  ({ Miniflare } = fromWrangler('miniflare'));
} catch (error) {
  fail(
    `wrangler's miniflare cannot be loaded (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): npm i -D wrangler@^4.86`,
  );
}
const mf = new Miniflare({
  modules: true,
  script: '',
  d1Persist: persist,
  d1Databases: { DATABASE: id },
});
/** @type {{ results: unknown[], success: boolean, meta: { duration?: number } }[]} */
const results = [];
try {
  const db = await mf.getD1Database('DATABASE');
  // A file is cut into transactions of about BATCH_CHARS between statements: an import needs no more,
  // its last statement writing the row that tells it finished, and a generation without that row is
  // never switched to. A command, after it, is one transaction, as wrangler runs one.
  /** @type {string[]} */
  let batch = [];
  let chars = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const done = await db.batch(batch.map((sql) => db.prepare(sql)));
    for (const result of done) {
      results.push({
        results: result.results ?? [],
        success: result.success,
        meta: { duration: result.meta?.duration },
      });
    }
    batch = [];
    chars = 0;
  };
  for (const statement of fromFile) {
    batch.push(statement);
    chars += statement.length;
    if (chars >= BATCH_CHARS) await flush();
  }
  await flush();
  batch = fromCommand;
  await flush();
} catch (error) {
  await mf.dispose().catch(() => undefined);
  const cause = /** @type {{ cause?: unknown }} */ (error)?.cause ?? error;
  fail(cause instanceof Error ? cause.message : String(cause));
}
await mf.dispose();
if (json) process.stdout.write(`${JSON.stringify(results)}\n`);
else process.stdout.write(`${results.length} statements executed\n`);
