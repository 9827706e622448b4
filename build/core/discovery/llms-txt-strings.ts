import type { ContentType, Language } from '../edge/languages.ts';

/** Addresses the fixed text of an llms.txt links to. */
export interface LlmsLinks {
  index: string;
  openapi: string;
  mcp: string;
}

/** The fixed text of one language's llms.txt, written in that language: a model reads the file whole. */
export interface LlmsStrings {
  sections: Record<ContentType, string>;
  /** Blockquote when the site has no description; `kinds` are those the site has (never empty). */
  summary(name: string, kinds: readonly ContentType[]): string;
  /**
   * The paragraph on how to use the API and the MCP server (Markdown), naming the kinds the site has
   * and its languages (`languages`: a list in words).
   */
  usage(links: LlmsLinks, kinds: readonly ContentType[], languages: string): string;
  /** What this file covers, given the site's canonical language. */
  scope(canonical: Language): string;
  languageNames: Record<Language, string>;
  /** The word that joins the last two of a list, given the last (`y`, `e` before `inglés`; `and`; `e`). */
  and(last: string): string;
  optional: {
    index: [label: string, description: string];
    openapi: [label: string, description: string];
    aiPlugin: [label: string, description: string];
    docs: [label: string, description: string];
    /** The llms.txt of another language. */
    llms(language: string): [label: string, description: string];
  };
}

const ES_PLURAL = { post: 'artículos', project: 'proyectos', tip: 'consejos' };
const ES_SINGULAR = { post: 'artículo', project: 'proyecto', tip: 'consejo' };
const EN_PLURAL = { post: 'posts', project: 'projects', tip: 'tips' };
const EN_SINGULAR = { post: 'post', project: 'project', tip: 'tip' };
const PT_PLURAL = { post: 'artigos', project: 'projetos', tip: 'dicas' };
const PT_SINGULAR = { post: 'artigo', project: 'projeto', tip: 'dica' };

/** `artículos, proyectos y consejos`, `posts and tips`, `posts`: the kinds a site has, as a list. */
function listed(kinds: readonly ContentType[], words: Record<ContentType, string>, and: string): string {
  const names = kinds.map((kind) => words[kind]);
  const last = names.pop() ?? '';
  return names.length > 0 ? `${names.join(', ')} ${and} ${last}` : last;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const LLMS_STRINGS: Record<Language, LlmsStrings> = {
  es: {
    sections: { post: 'Artículos', project: 'Proyectos', tip: 'Consejos' },
    summary: (name, kinds) => `${capitalized(listed(kinds, ES_PLURAL, 'y'))} de ${name}.`,
    usage: (l, kinds, languages) =>
      `Todo el contenido del sitio se puede leer por máquina, sin autenticación: [el índice en JSON](${l.index}) lista en una sola petición GET cada ${listed(kinds, ES_SINGULAR, 'y')} con su título, su descripción y sus direcciones en ${languages}, y [la descripción OpenAPI](${l.openapi}) documenta su formato. Los agentes pueden buscar y filtrar sin descargar el índice con el [servidor MCP](${l.mcp}) (Model Context Protocol) y sus herramientas \`list_content\`, \`search_content\` y \`content_stats\`.`,
    scope: (canonical) =>
      canonical === 'es'
        ? 'Este archivo lista las páginas en español, la versión canónica de cada contenido.'
        : `Este archivo lista las páginas que existen en español, con sus títulos en español; la página en ${LLMS_STRINGS.es.languageNames[canonical]} es la canónica.`,
    languageNames: { es: 'español', en: 'inglés', 'pt-br': 'portugués' },
    // Spanish writes `e` for `y` before a word that starts with the sound i: español e inglés.
    and: (last) => (/^h?i(?!e)/i.test(last) ? 'e' : 'y'),
    optional: {
      index: ['Índice de contenido (JSON)', 'todo el contenido en un solo documento'],
      openapi: ['Descripción OpenAPI', 'el formato de la API, para generadores de código y agentes'],
      aiPlugin: ['Manifiesto para agentes de IA', 'nombre y descripción del sitio para agentes'],
      docs: ['Referencia de la API', 'la documentación para personas'],
      llms: (language) => [`llms.txt en ${language}`, `las páginas en ${language}`],
    },
  },
  en: {
    sections: { post: 'Posts', project: 'Projects', tip: 'Tips' },
    summary: (name, kinds) => `${capitalized(listed(kinds, EN_PLURAL, 'and'))} from ${name}.`,
    usage: (l, kinds, languages) =>
      `All of the site's content can be read by machine, with no authentication: [the JSON index](${l.index}) lists every ${listed(kinds, EN_SINGULAR, 'and')} in one GET request, with its title, description and addresses in ${languages}, and [the OpenAPI description](${l.openapi}) documents its format. Agents can search and filter without downloading the index through the [MCP server](${l.mcp}) (Model Context Protocol) and its tools \`list_content\`, \`search_content\` and \`content_stats\`.`,
    scope: (canonical) =>
      canonical === 'en'
        ? 'This file lists the pages in English, the canonical version of each item.'
        : `This file lists the pages that exist in English, with their English titles; the ${LLMS_STRINGS.en.languageNames[canonical]} page is the canonical one.`,
    languageNames: { es: 'Spanish', en: 'English', 'pt-br': 'Portuguese' },
    and: () => 'and',
    optional: {
      index: ['Content index (JSON)', 'all the content in one document'],
      openapi: ['OpenAPI description', 'the API format, for code generators and agents'],
      aiPlugin: ['AI agent manifest', "the site's name and description for agents"],
      docs: ['API reference', 'the documentation for people'],
      llms: (language) => [`llms.txt in ${language}`, `the pages in ${language}`],
    },
  },
  'pt-br': {
    sections: { post: 'Artigos', project: 'Projetos', tip: 'Dicas' },
    summary: (name, kinds) => `${capitalized(listed(kinds, PT_PLURAL, 'e'))} de ${name}.`,
    usage: (l, kinds, languages) =>
      `Todo o conteúdo do site pode ser lido por máquina, sem autenticação: [o índice em JSON](${l.index}) lista em uma única requisição GET cada ${listed(kinds, PT_SINGULAR, 'e')} com título, descrição e endereços em ${languages}, e [a descrição OpenAPI](${l.openapi}) documenta o formato. Agentes podem buscar e filtrar sem baixar o índice pelo [servidor MCP](${l.mcp}) (Model Context Protocol) e suas ferramentas \`list_content\`, \`search_content\` e \`content_stats\`.`,
    scope: (canonical) =>
      canonical === 'pt-br'
        ? 'Este arquivo lista as páginas em português, a versão canônica de cada conteúdo.'
        : `Este arquivo lista as páginas que existem em português, com os títulos em português; a página em ${LLMS_STRINGS['pt-br'].languageNames[canonical]} é a canônica.`,
    languageNames: { es: 'espanhol', en: 'inglês', 'pt-br': 'português' },
    and: () => 'e',
    optional: {
      index: ['Índice de conteúdo (JSON)', 'todo o conteúdo em um único documento'],
      openapi: ['Descrição OpenAPI', 'o formato da API, para geradores de código e agentes'],
      aiPlugin: ['Manifesto para agentes de IA', 'nome e descrição do site para agentes'],
      docs: ['Referência da API', 'a documentação para pessoas'],
      llms: (language) => [`llms.txt em ${language}`, `as páginas em ${language}`],
    },
  },
};
