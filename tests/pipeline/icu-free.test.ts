import { afterEach, expect, it } from 'vitest';
import { formatProblems } from '../../build/core/errors.ts';
import { build } from '../../build/index.ts';
import { D1_WRANGLER } from '../helpers/project.ts';
import { FIXTURE_CONFIG, md, type TempSite, tempSite } from '../helpers/site.ts';

// Each of ICU's services loads its data at its first use: 20–35 ms for number formatting, 10–20 ms for
// collation, on this machine. A build after one edit at 1,000 items is some 450 ms in all, and it once
// paid for both: a number in the MCP backend's reason, and the order of two warnings.

let site: TempSite | undefined;
afterEach(() => site?.dispose());

/** Records every use of an ICU service from now until `restore`. */
function watchIcu(): { used: string[]; restore(): void } {
  const used: string[] = [];
  const undo: (() => void)[] = [];
  const patch = <T extends object>(owner: T, key: keyof T & string, what: string) => {
    const original = owner[key];
    const replacement = new Proxy(original as object, {
      apply: (target, self, args) => {
        used.push(what);
        return Reflect.apply(target as (...a: unknown[]) => unknown, self, args);
      },
      construct: (target, args, newTarget) => {
        used.push(what);
        return Reflect.construct(target as new (...a: unknown[]) => object, args, newTarget);
      },
    });
    Object.defineProperty(owner, key, { value: replacement, configurable: true, writable: true });
    undo.push(() =>
      Object.defineProperty(owner, key, { value: original, configurable: true, writable: true }),
    );
  };
  patch(Number.prototype, 'toLocaleString', 'Number#toLocaleString');
  patch(String.prototype, 'localeCompare', 'String#localeCompare');
  patch(Date.prototype, 'toLocaleString', 'Date#toLocaleString');
  patch(Date.prototype, 'toLocaleDateString', 'Date#toLocaleDateString');
  for (const name of [
    'Collator',
    'NumberFormat',
    'DateTimeFormat',
    'PluralRules',
    'Segmenter',
    'ListFormat',
  ] as const)
    patch(Intl, name, `Intl.${name}`);
  // A collator or formatter made earlier in this process (the tests share one) is used through these.
  const accessor = (proto: object, key: string, what: string) => {
    const original = Object.getOwnPropertyDescriptor(proto, key);
    if (!original?.get) throw new Error(`${what} is no getter here`);
    const get = original.get;
    Object.defineProperty(proto, key, {
      ...original,
      get(this: unknown) {
        used.push(what);
        return get.call(this);
      },
    });
    undo.push(() => Object.defineProperty(proto, key, original));
  };
  accessor(Intl.Collator.prototype, 'compare', 'Intl.Collator#compare');
  accessor(Intl.NumberFormat.prototype, 'format', 'Intl.NumberFormat#format');
  return {
    used,
    restore: () => {
      for (const f of undo) f();
    },
  };
}

it('builds after an edit, reports it and prints its warnings without loading ICU, every name being plain', async () => {
  const { aiPlugin: _, ...withoutPlugin } = FIXTURE_CONFIG;
  site = await tempSite(
    {
      'wrangler.toml': `name = "t"\n${D1_WRANGLER}`,
      'content/posts/_index.es.md': md({ title: 'Entradas' }),
      ...Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [
          `content/posts/entrada-${i}.es.md`,
          md({ title: `Entrada ${i}`, date: `2026-01-0${i + 1}`, tags: ['ia'] }),
        ]),
      ),
    },
    // Without aiPlugin: two warnings of the same file, which the report sorts by field.
    { ...withoutPlugin, mcp: { backend: 'auto' } },
  );
  expect((await site.cli('build')).code).toBe(0);
  await site.write('content/posts/entrada-3.es.md', md({ title: 'Entrada 3, editada', date: '2026-01-04' }));
  const icu = watchIcu();
  let printed: Awaited<ReturnType<TempSite['cli']>>;
  let far: Awaited<ReturnType<typeof build>>;
  try {
    printed = await site.cli('build');
    // Past the embedded ceiling: `auto` says how many items' texts passed it, a number written for people.
    far = await build({ root: site.root, limits: { embeddedModuleBytes: 200 } });
    formatProblems(far.warnings);
  } finally {
    icu.restore();
  }
  expect(printed.code).toBe(0);
  expect(printed.stdout + printed.stderr).toMatch(/aiPlugin\.contactEmail[\s\S]*aiPlugin\.logoUrl/);
  expect(far.mcp?.reason).toMatch(/the texts of its first \d of 6 items alone/);
  expect(icu.used).toEqual([]);
});
