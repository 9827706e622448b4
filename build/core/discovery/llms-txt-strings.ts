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
  /** Blockquote when the site has no description. */
  summary(name: string): string;
  /** The paragraph on how to use the API and the MCP server (Markdown). */
  usage(links: LlmsLinks): string;
  /** What this file covers. */
  scope: string;
  languageNames: Record<Language, string>;
  optional: {
    index: [label: string, description: string];
    openapi: [label: string, description: string];
    aiPlugin: [label: string, description: string];
    docs: [label: string, description: string];
    /** The llms.txt of another language. */
    llms(language: string): [label: string, description: string];
  };
}

export const LLMS_STRINGS: Record<Language, LlmsStrings> = {
  es: {
    sections: { post: 'Artículos', project: 'Proyectos', tip: 'Consejos' },
    summary: (name) => `Artículos, proyectos y consejos de ${name}.`,
    usage: (l) =>
      `Todo el contenido del sitio se puede leer por máquina, sin autenticación: [el índice en JSON](${l.index}) lista en una sola petición GET cada artículo, proyecto y consejo con su título, su descripción y sus direcciones en español, inglés y portugués, y [la descripción OpenAPI](${l.openapi}) documenta su formato. Los agentes pueden buscar y filtrar sin descargar el índice con el [servidor MCP](${l.mcp}) (Model Context Protocol) y sus herramientas \`list_content\`, \`search_content\` y \`content_stats\`.`,
    scope: 'Este archivo lista las páginas en español, la versión canónica de cada contenido.',
    languageNames: { es: 'español', en: 'inglés', 'pt-br': 'portugués' },
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
    summary: (name) => `Posts, projects and tips from ${name}.`,
    usage: (l) =>
      `All of the site's content can be read by machine, with no authentication: [the JSON index](${l.index}) lists every post, project and tip in one GET request, with its title, description and addresses in Spanish, English and Portuguese, and [the OpenAPI description](${l.openapi}) documents its format. Agents can search and filter without downloading the index through the [MCP server](${l.mcp}) (Model Context Protocol) and its tools \`list_content\`, \`search_content\` and \`content_stats\`.`,
    scope:
      'This file lists the pages that exist in English, with their English titles; the Spanish page is the canonical one.',
    languageNames: { es: 'Spanish', en: 'English', 'pt-br': 'Portuguese' },
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
    summary: (name) => `Artigos, projetos e dicas de ${name}.`,
    usage: (l) =>
      `Todo o conteúdo do site pode ser lido por máquina, sem autenticação: [o índice em JSON](${l.index}) lista em uma única requisição GET cada artigo, projeto e dica com título, descrição e endereços em espanhol, inglês e português, e [a descrição OpenAPI](${l.openapi}) documenta o formato. Agentes podem buscar e filtrar sem baixar o índice pelo [servidor MCP](${l.mcp}) (Model Context Protocol) e suas ferramentas \`list_content\`, \`search_content\` e \`content_stats\`.`,
    scope:
      'Este arquivo lista as páginas que existem em português, com os títulos em português; a página em espanhol é a canônica.',
    languageNames: { es: 'espanhol', en: 'inglês', 'pt-br': 'português' },
    optional: {
      index: ['Índice de conteúdo (JSON)', 'todo o conteúdo em um único documento'],
      openapi: ['Descrição OpenAPI', 'o formato da API, para geradores de código e agentes'],
      aiPlugin: ['Manifesto para agentes de IA', 'nome e descrição do site para agentes'],
      docs: ['Referência da API', 'a documentação para pessoas'],
      llms: (language) => [`llms.txt em ${language}`, `as páginas em ${language}`],
    },
  },
};
