import type { ContentLayout } from '../config/site-config.ts';
import { type ContentType, LANGUAGES, type Language } from '../edge/languages.ts';
import { ContentIndexError } from '../errors.ts';
import { CONTROL_CHARACTERS } from '../printable.ts';
import { globBase } from './layout.ts';
import { SLUG_HINT, slugProblem } from './slug.ts';

export interface ScaffoldRequest {
  type: ContentType;
  slug: string;
  langs: Language[];
  /** The site's canonical language: its file is always written, so the new item builds. */
  canonical: Language;
  layout: ContentLayout;
  /** YYYY-MM-DD */
  date: string;
  /** The title of each language's file; a language without one gets the placeholder. */
  titles?: Partial<Record<Language, string>>;
}

const PLACEHOLDER: Record<Language, { title: string; description: string }> = {
  es: { title: 'Título en español', description: 'Una o dos frases que resumen la página.' },
  en: { title: 'English title', description: 'One or two sentences that summarise the page.' },
  'pt-br': { title: 'Título em português', description: 'Uma ou duas frases que resumem a página.' },
};

/** True when a title or description is still the text the scaffold wrote: the build refuses to publish it. */
export function isPlaceholder(key: 'title' | 'description', value: string): boolean {
  return PLACEHOLDERS[key].has(value.trim());
}

const PLACEHOLDERS = {
  title: new Set(LANGUAGES.map((lang) => PLACEHOLDER[lang].title)),
  description: new Set(LANGUAGES.map((lang) => PLACEHOLDER[lang].description)),
};

/** The files `content-index new` writes: where the layout expects them, as drafts that already validate. */
export function scaffold(request: ScaffoldRequest): { path: string; content: string }[] {
  const { type, slug, layout } = request;
  // The slug rule every slug follows, and for new files the house style on top: the name is also a
  // file name on every operating system the site is edited on.
  const why =
    slugProblem(slug) ??
    (/^[a-z0-9][a-z0-9-]*$/.test(slug) ? undefined : 'is not lowercase letters, digits and hyphens');
  if (why) {
    throw new ContentIndexError([
      {
        code: 'field_invalid',
        field: 'slug',
        message: `"${slug}" is not a slug: ${why}`,
        hint: `${SLUG_HINT}${suggestedSlug(slug)}; the title goes in --title`,
      },
    ]);
  }
  const titles = request.titles ?? {};
  const badTitles = LANGUAGES.flatMap((lang) => {
    const title = titles[lang];
    const why =
      title === undefined
        ? undefined
        : title.trim() === ''
          ? 'is empty'
          : CONTROL_CHARACTERS.test(title)
            ? 'contains a control character'
            : undefined;
    return why ? [{ lang, why }] : [];
  });
  if (badTitles.length > 0) {
    throw new ContentIndexError(
      badTitles.map(({ lang, why }) => ({
        code: 'field_invalid' as const,
        field: `title.${lang}`,
        message: why,
        hint: 'a title is one line of text, e.g. --title "Redes neuronales desde cero"',
      })),
    );
  }
  // The canonical file is always written, so the new item builds.
  const { canonical } = request;
  const langs = LANGUAGES.filter((l) => l === canonical || request.langs.includes(l));
  const glob = layout.types[type][0] ?? '';
  const [first = '', ...rest] = glob.split('/');
  // `{es,en}/posts/**` (Hugo's content folder per language): the language folder comes first.
  const languageFirst =
    layout.language === 'folder' && globBase(glob) === '' && /^(\{[^/]*\}|\*)$/.test(first);
  const dir = [layout.dir, languageFirst ? '' : globBase(glob)].filter(Boolean).join('/');
  const below = languageFirst ? globBase(rest.join('/')) : '';
  return langs.map((lang) => {
    const lines = [
      '---',
      // A JSON string is a YAML double-quoted scalar: any title is written safely.
      `title: ${JSON.stringify(titles[lang] ?? PLACEHOLDER[lang].title)}`,
      `description: "${PLACEHOLDER[lang].description}"`,
      `date: ${request.date}`,
      'draft: true',
    ];
    if (lang !== canonical) lines.push(`slug: ${slug}`);
    if (layout.language === 'field')
      lines.push(`${layout.languageField}: ${lang}`, `translationKey: ${slug}`);
    if (type === 'project') lines.push('technologies: []');
    lines.push('tags: []', '---', '', '');
    const path = languageFirst
      ? [dir, layout.languageFolders[lang], below, `${slug}.md`].filter(Boolean).join('/')
      : `${dir}/${pathFor(slug, lang, canonical, layout)}`;
    return { path, content: lines.join('\n') };
  });
}

function pathFor(slug: string, lang: Language, canonical: Language, layout: ContentLayout): string {
  switch (layout.language) {
    case 'suffix':
      return `${slug}.${layout.languageSuffixes?.[lang] ?? lang}.md`;
    case 'folder':
      return `${layout.languageFolders[lang]}/${slug}.md`;
    case 'field':
      return lang === canonical ? `${slug}.md` : `${slug}-${lang}.md`;
  }
}

/** A title given where the slug goes (`new post "Título"`): the slug it would make, to copy. */
function suggestedSlug(written: string): string {
  const slug = written
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug && slug !== written ? ` (here: ${slug} --title ${JSON.stringify(written)})` : '';
}
