import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// What the discovery documents say is the site's: the kinds of content it has, its own logo, and a
// warning naming the setting wherever a value would otherwise be a placeholder.
const { aiPlugin: _, description: __, ...BARE } = FIXTURE_CONFIG;

let site: TempSite | undefined;
afterEach(async () => {
  await site?.dispose();
  site = undefined;
});

async function built(files: Record<string, string>, config: Record<string, unknown>) {
  site = await tempSite(files, config);
  const result = await site.cli('build');
  expect(result.code, result.stderr).toBe(0);
  return { stderr: result.stderr, site };
}

const llms = (s: TempSite, path: string) => readFile(join(s.out, path), 'utf8');

describe('llms.txt names the kinds of content the site has', () => {
  it('a blog of posts alone: posts, never "projects and tips"', async () => {
    const { site: s } = await built(
      {
        'content/posts/hola.es.md': md({ title: 'Hola' }),
        'content/posts/hola.en.md': md({ title: 'Hello' }),
      },
      { ...BARE, aiPlugin: FIXTURE_CONFIG.aiPlugin },
    );
    const es = await llms(s, 'llms.txt');
    expect(es).toContain('> Artículos de Fixture.');
    expect(es).toContain('lista en una sola petición GET cada artículo con su título');
    expect(es).not.toMatch(/proyecto|consejo/i);
    const en = await llms(s, 'en/llms.txt');
    expect(en).toContain('> Posts from Fixture.');
    expect(en).toContain('lists every post in one GET request');
    expect(en).not.toMatch(/project|tip/i);
  });

  it('posts and tips: both, and no projects', async () => {
    const { site: s } = await built(
      {
        'content/posts/hola.es.md': md({ title: 'Hola' }),
        'content/tips/atajo.es.md': md({ title: 'Atajo' }),
      },
      { ...BARE, aiPlugin: FIXTURE_CONFIG.aiPlugin },
    );
    const es = await llms(s, 'llms.txt');
    expect(es).toContain('> Artículos y consejos de Fixture.');
    expect(es).toContain('cada artículo y consejo con su título');
    expect(es).not.toMatch(/proyecto/i);
  });
});

describe("ai-plugin.json's logo and contact", () => {
  const POST = { 'content/posts/hola.es.md': md({ title: 'Hola' }) };

  it('with neither set nor served: two warnings naming the settings', async () => {
    const { stderr, site: s } = await built(POST, BARE);
    expect(stderr).toContain(
      "site.config.ts: aiPlugin.logoUrl: is not set, and the site serves no logo (none of /logo.png, /logo.svg, /logo.webp … in public/): /.well-known/ai-plugin.json's logo_url is https://example.com/logo.png, which answers 404",
    );
    expect(stderr).toContain("hint: put the site's logo in static/logo.png, or set aiPlugin.logoUrl");
    expect(stderr).toContain(
      'site.config.ts: aiPlugin.contactEmail: is not set: /.well-known/ai-plugin.json and /openapi.json give webmaster@example.com, a mailbox that may not exist',
    );
    const manifest = await s.readJson<Record<string, string>>('.well-known/ai-plugin.json');
    expect(manifest.logo_url).toBe('https://example.com/logo.png');
  });

  it("unset, it is the site's own logo: one the generator wrote, or one in the folder it copies", async () => {
    const first = await built(
      { ...POST, 'public/favicon.ico': 'ICO', 'public/index.html': '<h1>Site</h1>' },
      { ...BARE, aiPlugin: { contactEmail: 'hola@example.com' } },
    );
    expect(first.stderr).toBe('');
    expect((await first.site.readJson<Record<string, string>>('.well-known/ai-plugin.json')).logo_url).toBe(
      'https://example.com/favicon.ico',
    );
    await first.site.dispose();
    const second = await built(
      { ...POST, 'static/images/logo.svg': '<svg/>' },
      { ...BARE, generatorStatic: 'static', aiPlugin: { contactEmail: 'hola@example.com' } },
    );
    expect(second.stderr).toBe('');
    expect((await second.site.readJson<Record<string, string>>('.well-known/ai-plugin.json')).logo_url).toBe(
      'https://example.com/images/logo.svg',
    );
  });

  it('set to a file on the site that it does not serve: a warning until the file is there', async () => {
    const config = {
      ...BARE,
      generatorStatic: ['static'],
      aiPlugin: { logoUrl: '/marca.png', contactEmail: 'hola@example.com' },
    };
    const { stderr, site: s } = await built(POST, config);
    expect(stderr).toContain(
      "site.config.ts: aiPlugin.logoUrl: is https://example.com/marca.png, a file the site does not serve (no marca.png in public/, static/): /.well-known/ai-plugin.json's logo_url answers 404",
    );
    await s.write('static/marca.png', 'PNG');
    const again = await s.cli('build');
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
  });
});
