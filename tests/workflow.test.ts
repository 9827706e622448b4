import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import yaml from 'js-yaml';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDate } from '../build/core/edge/dates.ts';
import { importConfigModule } from '../build/stages/load-config.ts';
import { PROJECT_ROOT } from './helpers/site.ts';

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  strategy?: { matrix?: { node?: number[] } };
  steps: Step[];
  if?: string;
  needs?: string;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: unknown;
  jobs: Record<string, Job>;
}

let workflow: Workflow;
let text: string;
let readme: string;
let scripts: Record<string, string>;
let engines: string;

beforeAll(async () => {
  text = await readFile(join(PROJECT_ROOT, '.github/workflows/deploy.yml'), 'utf8');
  workflow = yaml.load(text) as Workflow;
  readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const manifest = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8'));
  scripts = manifest.scripts;
  engines = manifest.engines.node;
});

describe('the GitHub Actions workflow', () => {
  it('runs on pull requests, on main and on a daily schedule', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['pull_request', 'push', 'schedule']));
    expect(workflow.on.push).toEqual({ branches: ['main'] });
    const [schedule] = workflow.on.schedule as { cron: string }[];
    expect(schedule?.cron).toMatch(/^\d+ \d+ \* \* \*$/); // once a day
  });

  it('builds and deploys within the hour after every lifecycle date of headers.config.ts (a sunset most of all)', async () => {
    // The static /openapi.json lists a withdrawn version's routes as 200 until the first build after its
    // sunset (docs/versions.md): a scheduled run must come soon after each date, not hours later.
    const headers = (await importConfigModule(PROJECT_ROOT, 'headers.config.ts', 'headers configuration', {
      helper: 'defineHeaders',
    })) as { versions: Record<string, { published: string; sunset?: string }> };
    const dates = Object.values(headers.versions).flatMap((v) => [
      v.published,
      ...(v.sunset ? [v.sunset] : []),
    ]);
    // And the walk-through's own example: v1's sunset, v2's release (docs/versions.md).
    const page = await readFile(join(PROJECT_ROOT, 'docs/versions.md'), 'utf8');
    dates.push(
      ...[...page.matchAll(/(?:published|sunset): '(\d{4}-\d\d-\d\d[^']*)'/g)].map((m) => m[1] ?? ''),
    );
    expect(dates.length).toBeGreaterThan(2);
    const crons = (workflow.on.schedule as { cron: string }[]).map((s) => s.cron);
    for (const date of dates) {
      const written = readDate(date);
      if (!written.ok) throw new Error(`${date}: ${written.message}`);
      const next = nextRun(crons, written.time);
      expect(next - written.time, `the first scheduled run after ${date}`).toBeLessThanOrEqual(60 * 60_000);
    }
    // The deploy job runs on the schedule (it skips only pull requests), after the tests.
    expect(workflow.jobs.deploy?.if).not.toContain("'schedule'");
  });

  it('pins every action by commit SHA', () => {
    const uses = Object.values(workflow.jobs).flatMap((job) =>
      job.steps.flatMap((s) => (s.uses ? [s.uses] : [])),
    );
    expect(uses.length).toBeGreaterThan(0);
    for (const use of uses) expect(use).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
  });

  it('grants the least permissions: none by default, read-only contents per job', () => {
    expect(workflow.permissions).toEqual({});
    for (const job of Object.values(workflow.jobs)) expect(job.permissions).toEqual({ contents: 'read' });
  });

  it('hands secrets only to the deploy job, which runs on main after the tests', () => {
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const usesSecrets = JSON.stringify(job).includes('secrets.');
      expect(usesSecrets, name).toBe(name === 'deploy');
    }
    expect(workflow.jobs.deploy?.needs).toBe('test');
    expect(workflow.jobs.deploy?.if).toContain("github.ref == 'refs/heads/main'");
    expect(workflow.jobs.deploy?.if).toContain("github.event_name != 'pull_request'");
  });

  it('runs the /docs/ browser test against the Chrome of the runner rather than skipping it', () => {
    const test = workflow.jobs.test?.steps.find((s) => s.run === 'npm test');
    expect(test?.env?.CONTENT_INDEX_CHROMIUM).toBe('/usr/bin/google-chrome');
  });

  it('installs hugo for the init test (addresses checked against real hugo) rather than skipping it', () => {
    const steps = workflow.jobs.test?.steps.map((s) => s.run) ?? [];
    const apt = steps.findIndex((run) => /apt-get install .*\bhugo\b/.test(run ?? ''));
    expect(apt).toBeGreaterThan(-1);
    expect(apt).toBeLessThan(steps.indexOf('npm test'));
  });

  it('installs, tests and builds on every run, and deploys with the npm scripts the README documents', () => {
    const runs = (job: string) =>
      workflow.jobs[job]?.steps.flatMap((s) => (s.run && !s.run.includes('apt-get') ? [s.run] : [])) ?? [];
    expect(runs('test')).toEqual(['npm ci', 'npm test', 'npm run build']);
    expect(runs('deploy')).toEqual(['npm ci', 'npm run deploy']);
    for (const command of [...runs('test'), ...runs('deploy')]) {
      const script = /^npm (?:run )?([\w:-]+)$/.exec(command)?.[1];
      if (script !== 'ci') expect(scripts[script ?? ''], command).toBeDefined();
      expect(readme, `README documents ${command}`).toContain(command);
    }
  });

  it('restores and saves the parse cache around every build with actions/cache', () => {
    for (const name of ['test', 'deploy']) {
      const steps = workflow.jobs[name]?.steps ?? [];
      const cache = steps.findIndex((s) => s.uses?.startsWith('actions/cache@'));
      const builds = steps.findIndex((s) => s.run === 'npm run build' || s.run === 'npm run deploy');
      expect(cache, name).toBeGreaterThan(-1);
      expect(cache, `${name}: the cache is restored before the build`).toBeLessThan(builds);
      const settings = (steps[cache] as { with?: Record<string, string> }).with ?? {};
      expect(settings.path).toBe('.content-index/cache');
      // A key of its own per commit (a cache entry is never overwritten), restored from the newest.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, as the workflow writes it
      expect(settings.key).toContain('${{ github.sha }}');
      expect(settings.key?.startsWith(settings['restore-keys'] ?? '\u0000')).toBe(true);
    }
  });

  it('tests on Node 20, 22 and 24, each a line package.json supports, and deploys with the .nvmrc line', async () => {
    const lines = workflow.jobs.test?.strategy?.matrix?.node ?? [];
    expect(lines).toEqual([20, 22, 24]);
    expect(semver.satisfies('20.19.0', engines)).toBe(true);
    expect(semver.satisfies('20.18.3', engines)).toBe(false); // no require(esm), vitest 4 refuses it
    for (const line of lines) expect(semver.satisfies(`${line}.99.0`, engines), `Node ${line}`).toBe(true);
    const setup = (job: string) =>
      workflow.jobs[job]?.steps.find((s) => s.uses?.startsWith('actions/setup-node')) as
        | { with?: Record<string, unknown> }
        | undefined;
    expect(setup('test')?.with?.['node-version']).toBe(`$\{{ matrix.node }}`);
    expect(setup('deploy')?.with?.['node-version-file']).toBe('.nvmrc');
    const nvmrc = (await readFile(join(PROJECT_ROOT, '.nvmrc'), 'utf8')).trim();
    expect(lines).toContain(Number(nvmrc));
  });
});

/** The first minute at or after `from` (ms) that one of the cron lines (minute hour day month weekday, UTC) matches. */
function nextRun(crons: readonly string[], from: number): number {
  const start = Math.ceil(from / 60_000) * 60_000;
  for (let t = start; t < start + 8 * 24 * 60 * 60_000; t += 60_000) {
    const d = new Date(t);
    const values = [d.getUTCMinutes(), d.getUTCHours(), d.getUTCDate(), d.getUTCMonth() + 1, d.getUTCDay()];
    if (crons.some((cron) => cron.split(/\s+/).every((field, i) => cronMatches(field, values[i] ?? -1))))
      return t;
  }
  throw new Error(`no run of ${crons.join(', ')} within 8 days of ${new Date(from).toISOString()}`);
}

function cronMatches(field: string, value: number): boolean {
  return field.split(',').some((part) => {
    const [range = '*', step = '1'] = part.split('/');
    const [low, high] = range === '*' ? [0, 59] : range.split('-').map(Number);
    const from = low ?? 0;
    const to = range.includes('-') || range === '*' ? (high ?? from) : step === '1' ? from : 59;
    return value >= from && value <= to && (value - from) % Number(step) === 0;
  });
}
