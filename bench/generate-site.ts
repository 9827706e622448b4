import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Deterministic synthetic trilingual sites for benchmarks and scale tests: the same seed and size give
 * the same files byte for byte. About 60% posts, 15% projects, 25% tips; every item in Spanish, most in
 * English and Portuguese; realistic front matter and 300–1,500-word bodies.
 */
export interface GenerateOptions {
  items: number;
  seed?: number;
  /** Body length range in words. */
  words?: [number, number];
  /** Words of each description after its title (default 12): a long one makes a large index. */
  descriptionWords?: number;
}

const TOPICS = [
  ['aprendizaje automático', 'machine learning', 'aprendizado de máquina'],
  ['redes neuronales', 'neural networks', 'redes neurais'],
  ['programación', 'programming', 'programação'],
  ['transformers', 'transformers', 'transformers'],
  ['embeddings', 'embeddings', 'embeddings'],
  ['recuperación aumentada', 'retrieval augmentation', 'recuperação aumentada'],
  ['visión por computadora', 'computer vision', 'visão computacional'],
  ['procesamiento de lenguaje', 'language processing', 'processamento de linguagem'],
  ['optimización', 'optimization', 'otimização'],
  ['evaluación de modelos', 'model evaluation', 'avaliação de modelos'],
] as const;
const TECHNOLOGIES = [
  'Python',
  'PyTorch',
  'TensorFlow',
  'Rust',
  'TypeScript',
  'Go',
  'JAX',
  'ONNX',
  'FastAPI',
  'SQLite',
];
const TAGS = [
  'ia',
  'ml',
  'python',
  'rust',
  'datos',
  'llm',
  'rag',
  'gpu',
  'tutorial',
  'rendimiento',
  'nlp',
  'mlops',
];
const WORDS = {
  es: 'el modelo aprende una representación de los datos con gradientes y capas que transforman cada entrada en un vector útil para la tarea'.split(
    ' ',
  ),
  en: 'the model learns a representation of the data with gradients and layers that turn every input into a vector useful for the task'.split(
    ' ',
  ),
  'pt-br':
    'o modelo aprende uma representação dos dados com gradientes e camadas que transformam cada entrada em um vetor útil para a tarefa'.split(
      ' ',
    ),
};
const LANGS = ['es', 'en', 'pt-br'] as const;
const TITLE = { es: 'Guía de', en: 'A guide to', 'pt-br': 'Guia de' };

/** mulberry32: tiny, fast, good enough for reproducible test data (the tests' generator uses it too). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface GeneratedFile {
  path: string;
  content: string;
}

export function* generateSite(options: GenerateOptions): Generator<GeneratedFile> {
  const rand = random(options.seed ?? 42);
  const [minWords, maxWords] = options.words ?? [300, 1500];
  const descriptionWords = options.descriptionWords ?? 12;
  const sentence = (lang: (typeof LANGS)[number]) =>
    Array.from({ length: descriptionWords }, (_, k) => WORDS[lang][k % WORDS[lang].length]).join(' ');
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)] as T;
  for (let i = 0; i < options.items; i++) {
    const roll = rand();
    const type = roll < 0.6 ? 'posts' : roll < 0.75 ? 'projects' : 'tips';
    const topic = pick(TOPICS);
    const name = `${type.slice(0, -1)}-${String(i).padStart(5, '0')}`;
    const day = new Date(Date.UTC(2019, 0, 1) + Math.floor(rand() * 2500) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const tags = [pick(TAGS), pick(TAGS), pick(TAGS)].filter((t, k, all) => all.indexOf(t) === k);
    const technologies = [pick(TECHNOLOGIES), pick(TECHNOLOGIES)].filter((t, k, all) => all.indexOf(t) === k);
    const hasEn = rand() < 0.85;
    const hasPt = rand() < 0.75;
    const image = rand() < 0.8 ? `${type}/${name}.webp` : undefined;
    for (const [index, lang] of LANGS.entries()) {
      if ((lang === 'en' && !hasEn) || (lang === 'pt-br' && !hasPt)) continue;
      const title = `${TITLE[lang]} ${topic[index]} nº ${i}`;
      const lines = [
        '---',
        `title: "${title}"`,
        `description: "${title}: ${sentence(lang)}."`,
        `date: ${day}`,
        ...(lang === 'es' ? [] : [`slug: ${lang}-${name}`]),
        ...(image && lang === 'es' ? [`image: ${image}`] : []),
        `tags: [${tags.join(', ')}]`,
        ...(type === 'projects' && lang === 'es' ? [`technologies: [${technologies.join(', ')}]`] : []),
        '---',
        '',
      ];
      const words = minWords + Math.floor(rand() * (maxWords - minWords + 1));
      const body: string[] = [];
      for (let w = 0; w < words; w++) {
        body.push(pick(WORDS[lang]));
        if (w % 120 === 119) body.push('\n\n');
      }
      yield {
        path: `content/${type}/${name}.${lang}.md`,
        content: `${lines.join('\n')}\n${body.join(' ')}\n`,
      };
    }
  }
}

export interface SiteFiles {
  /** Merged into the generated site.config.ts (e.g. `{ mcp: { backend: 'd1' } }`). */
  config?: Record<string, unknown>;
  /** A wrangler.toml for the site (the D1 backend needs its binding there). */
  wrangler?: string;
}

/** Writes a generated site (content, site.config.ts, headers.config.ts) into `root`. Returns the number of files. */
export async function writeSite(root: string, options: GenerateOptions & SiteFiles): Promise<number> {
  let count = 0;
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'package.json'), '{ "type": "module" }\n');
  const config = {
    site: 'https://example.com/',
    images: 'https://images.example.com/',
    name: 'Synthetic',
    description: 'Generated for benchmarks',
    ...options.config,
  };
  await writeFile(join(root, 'site.config.ts'), `export default ${JSON.stringify(config)};\n`);
  if (options.wrangler !== undefined) await writeFile(join(root, 'wrangler.toml'), options.wrangler);
  await writeFile(
    join(root, 'headers.config.ts'),
    "export default { versions: { v1: { published: '2025-01-15' } } };\n",
  );
  const dirs = new Set<string>();
  for (const file of generateSite(options)) {
    const path = join(root, file.path);
    const dir = dirname(path);
    if (!dirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      dirs.add(dir);
    }
    await writeFile(path, file.content);
    count++;
  }
  return count;
}
