import { ContentIndexError } from './errors.ts';
import { CANONICAL_LANGUAGE, type ContentType, LANGUAGES, type Language } from './languages.ts';
import { globBase } from './layout.ts';
import type { ContentLayout } from './site-config.ts';

export interface ScaffoldRequest {
  type: ContentType;
  slug: string;
  langs: Language[];
  layout: ContentLayout;
  /** YYYY-MM-DD */
  date: string;
}

const PLACEHOLDER: Record<Language, { title: string; description: string }> = {
  es: { title: 'Título en español', description: 'Una o dos frases que resumen la página.' },
  en: { title: 'English title', description: 'One or two sentences that summarise the page.' },
  'pt-br': { title: 'Título em português', description: 'Uma ou duas frases que resumem a página.' },
};

/** The files `content-index new` writes: where the layout expects them, as drafts that already validate. */
export function scaffold(request: ScaffoldRequest): { path: string; content: string }[] {
  const { type, slug, layout } = request;
  if (!/^[a-z0-9][a-z0-9-]*$/.test(slug)) {
    throw new ContentIndexError([
      {
        code: 'field_invalid',
        field: 'slug',
        message: `"${slug}" is not a slug`,
        hint: 'use lowercase letters, digits and hyphens, e.g. redes-neuronales',
      },
    ]);
  }
  // The Spanish file is canonical: always written, so the new item builds.
  const langs = LANGUAGES.filter((l) => l === CANONICAL_LANGUAGE || request.langs.includes(l));
  const dir = [layout.dir, globBase(layout.types[type][0] ?? '')].filter(Boolean).join('/');
  return langs.map((lang) => {
    const lines = [
      '---',
      `title: "${PLACEHOLDER[lang].title}"`,
      `description: "${PLACEHOLDER[lang].description}"`,
      `date: ${request.date}`,
      'draft: true',
    ];
    if (lang !== CANONICAL_LANGUAGE) lines.push(`slug: ${slug}`);
    if (layout.language === 'field')
      lines.push(`${layout.languageField}: ${lang}`, `translationKey: ${slug}`);
    if (type === 'project') lines.push('technologies: []');
    lines.push('tags: []', '---', '', '');
    return { path: `${dir}/${pathFor(slug, lang, layout)}`, content: lines.join('\n') };
  });
}

function pathFor(slug: string, lang: Language, layout: ContentLayout): string {
  switch (layout.language) {
    case 'suffix':
      return `${slug}.${lang}.md`;
    case 'folder':
      return `${layout.languageFolders[lang]}/${slug}.md`;
    case 'field':
      return lang === CANONICAL_LANGUAGE ? `${slug}.md` : `${slug}-${lang}.md`;
  }
}
