import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiVersion } from '../../build/core/discovery/api-versions.ts';
import { openApiDocument } from '../../build/core/discovery/openapi.ts';
import { type BuildResult, build } from '../../build/index.ts';
import indexSchemaV1 from '../../build/schemas/v1/content-index.schema.json' with { type: 'json' };
import { PROJECT_ROOT } from '../helpers/site.ts';

// The two linters integrators run on an OpenAPI description, each with its recommended rules, on the
// sample site's /openapi.json and on the documents of a deprecated and a withdrawn version.

const require = createRequire(import.meta.url);
const binOf = (pkg: string, bin: string) =>
  join(
    dirname(require.resolve(`${pkg}/package.json`)),
    (require(`${pkg}/package.json`).bin as Record<string, string>)[bin] ?? '',
  );
const REDOCLY = binOf('@redocly/cli', 'redocly');
const SPECTRAL = binOf('@stoplight/spectral-cli', 'spectral');

interface Finding {
  severity: 'error' | 'warning';
  rule: string;
  /** JSON pointer (Redocly) or dotted path (Spectral) of what the rule flagged. */
  at: string;
  message: string;
}

/**
 * Warnings the documents keep on purpose. Anything else fails the test, so a new warning is a decision.
 * - operation-4xx-response: every operation declares the answer it gives when all is well (the index
 *   operations declare only 200); the problems under /api/ are the same for every route, so they are
 *   documented once, in the text and as the reusable NotFound and VersionWithdrawn responses…
 * - no-unused-components / oas3-unused-component: …which, for that reason, no operation refers to.
 * - no-server-example.com: the sample site's address is example.com.
 * - no-required-schema-properties-undefined: v1's frozen schema says `technologies` only appears on
 *   projects with `else: { not: { required: [technologies] } }`, a pattern the rule does not follow.
 */
function expected(finding: Finding): boolean {
  switch (finding.rule) {
    case 'operation-4xx-response':
      return true;
    case 'no-unused-components':
    case 'oas3-unused-component':
      return /responses[./](NotFound|VersionWithdrawn)$/.test(finding.at);
    case 'no-server-example.com':
      return finding.at === '#/servers/0/url';
    case 'no-required-schema-properties-undefined':
      return /^#\/components\/schemas\/ContentItem(V\d+)?\/else\/not\/required\/0$/.test(finding.at);
    default:
      return false;
  }
}

function run(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      {
        cwd,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          NO_COLOR: '1',
        },
      },
      // Both exit non-zero when they find an error; the JSON on stdout says what.
      (error, stdout, stderr) => (stdout.trim() ? resolve(stdout) : reject(error ?? new Error(stderr))),
    );
  });
}

async function redocly(file: string): Promise<Finding[]> {
  const out = JSON.parse(await run([REDOCLY, 'lint', file, '--format=json'], dirname(file)));
  return out.problems.map(
    (p: { severity: string; ruleId: string; message: string; location: { pointer: string }[] }) => ({
      severity: p.severity === 'error' ? 'error' : 'warning',
      rule: p.ruleId,
      at: p.location[0]?.pointer ?? '',
      message: p.message,
    }),
  );
}

async function spectral(file: string): Promise<Finding[]> {
  const ruleset = join(dirname(file), '.spectral.yaml');
  await writeFile(ruleset, 'extends: ["spectral:oas"]\n');
  const text = await run(
    [SPECTRAL, 'lint', file, '--ruleset', ruleset, '--format', 'json', '--quiet'],
    dirname(file),
  );
  return (
    JSON.parse(text.slice(text.indexOf('['))) as {
      severity: number;
      code: string;
      path: string[];
      message: string;
    }[]
  ).map((p) => ({
    severity: p.severity === 0 ? 'error' : 'warning',
    rule: p.code,
    at: p.path.join('.'),
    message: p.message,
  }));
}

let dir: string;
let result: BuildResult;
const documents: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'content-index-openapi-lint-'));
  result = await build({ root: PROJECT_ROOT, out: join(dir, 'public') });
  documents.sample = join(dir, 'public', 'openapi.json');
  const lifecycles: Record<string, ApiVersion[]> = {
    deprecated: [
      { name: 'v1', state: 'deprecated', sunset: '2027-09-01T00:00:00Z' },
      { name: 'v2', state: 'current' },
    ],
    withdrawn: [
      { name: 'v1', state: 'withdrawn', sunset: '2027-09-01T00:00:00Z' },
      { name: 'v2', state: 'current' },
    ],
  };
  for (const [name, versions] of Object.entries(lifecycles)) {
    const v2 = structuredClone(indexSchemaV1) as { properties: Record<string, unknown> };
    v2.properties.extra = { type: 'string' };
    const document = openApiDocument({
      config: result.config,
      versions,
      schemaOf: (v) => (v === 'v2' ? v2 : indexSchemaV1),
    });
    documents[name] = join(dir, `${name}.json`);
    await writeFile(documents[name], JSON.stringify(document, null, 2));
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['sample', 'deprecated', 'withdrawn'])('the %s OpenAPI document', (name) => {
  it.each([
    ['Redocly CLI (recommended rules)', redocly],
    ['Spectral (spectral:oas)', spectral],
  ])('%s reports no error and only the deliberate warnings', async (_linter, lint) => {
    const findings = await lint(documents[name] as string);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(findings.filter((f) => !expected(f))).toEqual([]);
  });
});

it('the linters are not vacuous: each flags a document that breaks its rules', async () => {
  const broken = JSON.parse(await readFile(documents.sample as string, 'utf8'));
  delete broken.security; // Redocly: security-defined on every operation
  broken.components.schemas.Counts.properties.list = { type: 'array' }; // Spectral: array-items
  const file = join(dir, 'broken.json');
  await writeFile(file, JSON.stringify(broken));
  const [fromRedocly, fromSpectral] = await Promise.all([redocly(file), spectral(file)]);
  expect(fromRedocly).toContainEqual(
    expect.objectContaining({ severity: 'error', rule: 'security-defined' }),
  );
  expect(fromSpectral).toContainEqual(expect.objectContaining({ severity: 'error', rule: 'array-items' }));
});
