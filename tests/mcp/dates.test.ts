import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../build/index.ts';
import { clientAjv } from '../helpers/ajv.ts';
import { type Connection, connectV1Http, GENERATED } from '../helpers/mcp.ts';
import { type PagesDev, startProjectPagesDev } from '../helpers/pages-dev.ts';
import { md, type TempSite, tempSite } from '../helpers/site.ts';

/**
 * A site whose dates are written in every accepted form, in YAML, TOML and JSON. The newest is the
 * quoted date alone (`date: '2025-03-14'`), which once reached content_stats as `newest.date` without a
 * time and broke that tool's own output schema (`format: date-time`) for the official 1.x client.
 */
const FILES = {
  'content/posts/citada.es.md': md("title: Fecha citada\ndate: '2025-03-14'\ntags: [fechas]"),
  'content/posts/citada.en.md': md('title: Quoted date\nslug: quoted-date\ndate: 2025-03-14'),
  'content/posts/sin-citar.es.md': md('title: Fecha sin citar\ndate: 2025-03-13\ntags: [fechas]'),
  'content/posts/con-zona.es.md': md('title: Con zona\ndate: 2025-03-12T09:30:00+02:00'),
  'content/posts/utc.es.md': md('title: UTC\ndate: "2025-03-11T09:30:00.250Z"'),
  'content/posts/sin-zona.es.md': md('title: Sin zona\ndate: 2025-03-10 09:30'),
  'content/projects/toml.es.md':
    '+++\ntitle = "TOML"\ndate = 2025-03-09T23:30:00-03:00\ntechnologies = ["Rust"]\ntags = ["fechas"]\n+++\n',
  'content/projects/toml-local.es.md':
    '+++\ntitle = "TOML local"\ndate = 2025-03-08\ntechnologies = ["Go"]\n+++\n',
  'content/tips/json.es.md':
    '{\n  "title": "JSON",\n  "date": "2025-03-07T09:30:00Z",\n  "tags": ["fechas"]\n}\n',
  'content/tips/sin-fecha.es.md': md('title: Sin fecha'),
};

let site: TempSite;
let server: PagesDev;
let mcp: Connection;

beforeAll(async () => {
  site = await tempSite(FILES);
  await build({ root: site.root, clock: () => GENERATED });
  server = await startProjectPagesDev(site.out, [], site.root);
  mcp = await connectV1Http(`${server.url}/mcp`);
});
afterAll(async () => {
  await mcp?.close();
  await server?.stop();
  await site?.dispose();
});

describe('MCP tools on a site with dates in every accepted form (@modelcontextprotocol/sdk 1.x client)', () => {
  it('every tool answers structured content that validates against its output schema', async () => {
    const tools = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(['list_content', 'search_content', 'content_stats']);
    const ajv = clientAjv();
    const calls: Record<string, Record<string, unknown>[]> = {
      list_content: [{}, { type: 'project' }, { lang: 'en' }, { limit: 2 }],
      search_content: [{ query: 'fechas' }, { query: 'TOML' }],
      content_stats: [{}],
    };
    for (const tool of tools) {
      const validate = ajv.compile(tool.outputSchema ?? {});
      for (const args of calls[tool.name] ?? []) {
        // The 1.x client itself refuses structured content that breaks the schema (-32602); this
        // checks it too, with every format asserted, and says which call failed.
        const result = await mcp.callTool(tool.name, args);
        expect(result.isError ?? false).toBe(false);
        expect(
          validate(result.structuredContent),
          `${tool.name} ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`,
        ).toBe(true);
      }
    }
  });

  it('content_stats names the newest item with its date as a date-time', async () => {
    const stats = (await mcp.callTool('content_stats', {})).structuredContent as {
      newest: { date: string; title: string; url: string };
      generated: string;
    };
    expect(stats.newest).toEqual({
      date: '2025-03-14T00:00:00Z',
      type: 'post',
      title: 'Fecha citada',
      url: 'https://example.com/blog/citada/',
    });
    // `generated` is the newest published date here (no git, no SOURCE_DATE_EPOCH), in the same form.
    expect(stats.generated).toBe('2025-03-14T00:00:00Z');
  });
});
