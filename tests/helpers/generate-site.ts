import { random } from '../../bench/generate-site.ts';
import { md } from './site.ts';

const WORDS = [
  'redes',
  'neuronales',
  'transformers',
  'embeddings',
  'Python',
  'Rust',
  'datos',
  'modelos',
  'atención',
  'búsqueda',
  'programação',
  'learning',
  'vectores',
  'métricas',
  'compiladores',
];
/** Text an author could write that must not break a Markdown line. */
const HOSTILE = [
  '[borrador](x)',
  '# título',
  '> cita',
  'a\nb',
  '(paréntesis)',
  'C# & C++',
  '`code`',
  '*énfasis*',
  '1. lista',
];
const TECHNOLOGIES = ['Python', 'PyTorch', 'Rust', 'TypeScript', 'NumPy', 'ONNX'];
const FOLDERS = { post: 'posts', project: 'projects', tip: 'tips' } as const;

/**
 * A deterministic site of `count` items (posts, projects and tips, about 1 in 50 a draft) with a random
 * subset of translations and, now and then, a title or description that is hostile to Markdown. Returns
 * the files for `tempSite`.
 */
export function generateSite(count: number, seed = 1): Record<string, string> {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const phrase = (words: number) => {
    const parts = Array.from({ length: words }, () => pick(WORDS));
    if (next() < 0.1) parts.splice(Math.floor(next() * parts.length), 0, pick(HOSTILE));
    return parts.join(' ');
  };
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const roll = next();
    const type = roll < 0.5 ? 'post' : roll < 0.75 ? 'project' : 'tip';
    const name = `item-${String(i).padStart(4, '0')}`;
    const base: Record<string, unknown> = {};
    if (next() < 0.9)
      base.date = new Date(Date.UTC(2020, 0, 1) + Math.floor(next() * 2000) * 86_400_000)
        .toISOString()
        .slice(0, 10);
    if (next() < 0.5) base.image = `${FOLDERS[type]}/${name}.png`;
    if (type === 'project')
      base.technologies = [pick(TECHNOLOGIES), pick(TECHNOLOGIES)].filter(
        (t, k, all) => all.indexOf(t) === k,
      );
    if (next() < 0.02) base.draft = true;
    const page = (lang: string) => {
      // A title is one line (a line break there is refused); a description keeps its hostile line break.
      const front: Record<string, unknown> = { title: `${phrase(3).replaceAll('\n', ' ')} ${i} ${lang}` };
      if (next() < 0.8) front.description = phrase(8);
      if (lang !== 'es' && next() < 0.5) front.slug = `${name}-${lang}`;
      return front;
    };
    files[`content/${FOLDERS[type]}/${name}.es.md`] = md({ ...page('es'), ...base });
    if (next() < 0.7) files[`content/${FOLDERS[type]}/${name}.en.md`] = md(page('en'));
    if (next() < 0.5) files[`content/${FOLDERS[type]}/${name}.pt-br.md`] = md(page('pt-br'));
  }
  return files;
}
