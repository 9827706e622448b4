import aiPluginSchema from '../../schemas/ai-plugin.schema.json' with { type: 'json' };
import jsonSchemaDocumentSchema from '../../schemas/discovery/json-schema-document.schema.json' with {
  type: 'json',
};
import mcpDescriptionSchema from '../../schemas/discovery/mcp-description.schema.json' with { type: 'json' };
import mcpServerCardSchema from '../../schemas/discovery/mcp-server-card.schema.json' with { type: 'json' };
import openApiDocumentSchema from '../../schemas/discovery/openapi-document.schema.json' with {
  type: 'json',
};
import problemSchema from '../../schemas/problem.schema.json' with { type: 'json' };
import versionsSchema from '../../schemas/versions.schema.json' with { type: 'json' };
import { kindList } from '../config/ai-plugin-config.ts';
import { type SiteConfig, siteName } from '../config/site-config.ts';
import { SERVER_CARD_MEDIA_TYPE } from '../edge/http-headers.ts';
import { type ContentType, LANGUAGES, type Language } from '../edge/languages.ts';
import { PROBLEM_NAMES, PROBLEM_TYPES, problemTypeUri } from '../edge/problem-types.ts';
import { MANIFEST_PATH } from '../edge/version-manifest.ts';
import { indexSchema } from '../serializers/registry.ts';
import { addressOf, DISCOVERY_PATHS, INDEX_ALIAS_PATH, indexPath, schemaPath } from './addresses.ts';
import { type ApiVersion, currentVersion } from './api-versions.ts';
import { componentRef, schemaComponents } from './schema-components.ts';

/** The version of this API description (docs/discovery.md), not of the index format. */
export const OPENAPI_INFO_VERSION = '1.0.0';

export interface OpenApiInput {
  config: SiteConfig;
  /** Every published version with its lifecycle state; exactly one is current. */
  versions: readonly ApiVersion[];
  /** The JSON Schema of a version's index body. Default: the schemas the build validates with. */
  schemaOf?: (version: string) => object | undefined;
  /** The kinds of content the site has (llms-txt.ts siteKinds), which the texts name. Default: all three. */
  kinds?: readonly ContentType[];
}

const LANGUAGE_NAMES: Record<Language, string> = {
  es: 'Spanish',
  en: 'English',
  'pt-br': 'Brazilian Portuguese',
};

const TAGS = {
  index: 'Content index',
  discovery: 'Discovery',
  mcp: 'MCP',
} as const;

/** The reusable responses of the lifecycle's problems: documented once, declared by no operation. */
const RESPONSES = { notFound: 'NotFound', withdrawn: 'VersionWithdrawn' } as const;

/**
 * OpenAPI 3.1 description of exactly what the site serves: every JSON document with its schema (taken
 * from the repo's JSON Schemas), the llms.txt files, and the MCP endpoint's GET. Every operation
 * declares the answer it gives when all is well; the problems (unknown path or version, withdrawn
 * version) are the same for every route under `/api/`, so they are described once, in the text and as
 * reusable responses, rather than on operations whose contract is a 200.
 */
export function openApiDocument(input: OpenApiInput): object {
  const { config, versions } = input;
  const schemaOf = input.schemaOf ?? indexSchema;
  const site = config.site;
  const name = siteName(config);
  const latest = currentVersion(versions);
  const at = (path: string) => addressOf(site, path);
  const reference = config.apiReference.url;
  const kinds = kindList(input.kinds, true);

  // The current version's schemas get the plain names; an older version whose schema differs gets
  // its own, suffixed set (ContentIndexV1…), so both can be described side by side.
  const latestSchema = schemaOf(latest.name);
  if (!latestSchema) throw new Error(`no JSON Schema for the current version ${latest.name}`);
  const schemas: Record<string, object> = schemaComponents(latestSchema, { root: 'ContentIndex' });
  const indexRef = new Map<string, string>();
  const served = versions.filter((v) => v.state !== 'withdrawn');
  for (const version of served) {
    const schema = schemaOf(version.name);
    if (!schema) throw new Error(`no JSON Schema for version ${version.name}`);
    if (schema === latestSchema) {
      indexRef.set(version.name, componentRef('ContentIndex'));
      continue;
    }
    const suffix = upperFirst(version.name);
    Object.assign(schemas, schemaComponents(schema, { root: 'ContentIndex', suffix }));
    indexRef.set(version.name, componentRef(`ContentIndex${suffix}`));
  }
  siteLanguageText(schemas, config);
  Object.assign(
    schemas,
    schemaComponents(problemSchema, { root: 'Problem' }),
    schemaComponents(versionsSchema, { root: 'VersionManifest' }),
    schemaComponents(jsonSchemaDocumentSchema, { root: 'JsonSchemaDocument' }),
    schemaComponents(aiPluginSchema, { root: 'AiPluginManifest' }),
    schemaComponents(openApiDocumentSchema, { root: 'OpenApiDocument' }),
    schemaComponents(mcpDescriptionSchema, { root: 'McpServerDescription' }),
    schemaComponents(mcpServerCardSchema, { root: 'McpServerCard' }),
  );

  const paths: Record<string, object> = {};
  for (const version of served) {
    const ref = indexRef.get(version.name) ?? componentRef('ContentIndex');
    paths[`/${indexPath(version.name)}`] = { get: indexOperation(version, latest, ref) };
    paths[`/${schemaPath(version.name)}`] = { get: schemaOperation(version) };
  }
  paths[`/${INDEX_ALIAS_PATH}`] = {
    get: {
      tags: [TAGS.index],
      operationId: 'getContentIndex',
      summary: 'Content index (latest version)',
      description: `Alias that always follows the latest version, today ${latest.name}: the same body as \`/${indexPath(latest.name)}\`, byte for byte (so the same ETag). Clients that need stability use the versioned route.`,
      responses: { '200': indexResponse(indexRef.get(latest.name) ?? componentRef('ContentIndex')) },
    },
  };
  paths[`/${MANIFEST_PATH}`] = {
    get: {
      tags: [TAGS.index],
      operationId: 'getApiVersions',
      summary: 'API versions and their lifecycle',
      description:
        'Every version this API has published, withdrawn ones included, with its publication, deprecation and sunset dates, the current version, and the Cache-Control policy of the index routes: for clients that plan a migration ahead.',
      responses: { '200': jsonResponse('The versions, oldest first.', 'VersionManifest') },
    },
  };
  paths[`/${DISCOVERY_PATHS.openapi}`] = {
    get: {
      tags: [TAGS.discovery],
      operationId: 'getOpenApiDescription',
      summary: 'This API description',
      description: 'The OpenAPI 3.1 document you are reading, for code generators and agents.',
      responses: { '200': jsonResponse('An OpenAPI 3.1 document.', 'OpenApiDocument') },
    },
  };
  paths[`/${DISCOVERY_PATHS.aiPlugin}`] = {
    get: {
      tags: [TAGS.discovery],
      operationId: 'getAiPluginManifest',
      summary: 'Manifest for AI agents',
      description:
        'The AI plugin manifest agents probe for: names, descriptions and the address of this document.',
      responses: { '200': jsonResponse('The manifest.', 'AiPluginManifest') },
    },
  };
  const canonical = config.canonicalLanguage;
  for (const lang of config.languages) {
    paths[`/${config.llmsTxt[lang]}`] = {
      get: {
        tags: [TAGS.discovery],
        operationId:
          lang === canonical ? 'getLlmsTxt' : `getLlmsTxt${lang.split('-').map(upperFirst).join('')}`,
        summary:
          lang === canonical
            ? 'Guide for language models'
            : `Guide for language models (${LANGUAGE_NAMES[lang]})`,
        description:
          lang === canonical
            ? `Markdown in the llms.txt format: the site, how to use this API and the MCP server, and one line per ${kinds} with its ${LANGUAGE_NAMES[lang]} (canonical) title, address and description.`
            : `The same guide for the pages that exist in ${LANGUAGE_NAMES[lang]}, with their ${LANGUAGE_NAMES[lang]} titles, addresses and descriptions.`,
        responses: {
          '200': {
            description: 'Markdown text (llms.txt format).',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    };
  }
  paths[`/${DISCOVERY_PATHS.mcp}`] = {
    get: {
      tags: [TAGS.mcp],
      operationId: 'getMcpServer',
      summary: 'Model Context Protocol server',
      description:
        'The MCP server, with the tools `list_content`, `search_content` and `content_stats`. MCP clients connect to this address with the Streamable HTTP transport (JSON-RPC over POST); a plain GET answers with a JSON description of the server and its tools.',
      responses: {
        '200': jsonResponse(
          'A description of the server: name, transport, protocol revisions, tools and client configuration.',
          'McpServerDescription',
        ),
      },
    },
  };
  paths[`/${DISCOVERY_PATHS.mcp}/server-card`] = {
    get: {
      tags: [TAGS.mcp],
      operationId: 'getMcpServerCard',
      summary: 'MCP server card',
      description:
        "The server's identity and how to connect, in the shape of the MCP server-card extension, for registries and clients that discover servers.",
      responses: {
        '200': {
          description: 'The server card.',
          content: { [SERVER_CARD_MEDIA_TYPE]: { schema: { $ref: componentRef('McpServerCard') } } },
        },
      },
    },
  };

  const withdrawn = versions.filter((v) => v.state === 'withdrawn');
  const infoDescription = [
    `Read-only index of every ${kinds} published on [${name}](${site}), with the address of each page in ${wordList(config.languages.map((lang) => `${LANGUAGE_NAMES[lang]} (${lang}${lang === canonical ? ', canonical' : ''})`))}. Every endpoint answers GET, needs no authentication and takes no parameters; one request to an index endpoint returns the whole index.`,
    '',
    `- **Integrations** read \`/${indexPath(latest.name)}\` (stable within ${latest.name}); \`/${INDEX_ALIAS_PATH}\` follows the latest version.`,
    `- **Language models** read [llms.txt](${at('llms.txt')})${llmsOthers(config, at)}.`,
    `- **AI agents** use the [MCP server](${at(DISCOVERY_PATHS.mcp)}) (tools \`list_content\`, \`search_content\`, \`content_stats\`) or the [AI plugin manifest](${at(DISCOVERY_PATHS.aiPlugin)}).`,
    `- **Validators** use the [JSON Schema of the ${latest.name} index](${at(schemaPath(latest.name))}).`,
    '- **Browsers** may read every document from any origin (`Access-Control-Allow-Origin: *`), including the `ETag`, `Deprecation`, `Sunset` and `Link` headers. Send plain GET requests: the current version, the alias and the discovery documents are static files whose host refuses CORS preflights, and the browser cache revalidates with `If-None-Match` by itself.',
    '',
    '## Versions',
    '',
    'Within a version the shape is stable: fields are only ever added, never removed or retyped, so ignore fields you do not know. When a newer version is published, the previous one keeps being served unchanged for at least 12 months; meanwhile its responses carry the `Deprecation` and `Sunset` headers and its `versions.deprecation` field announces the successor. After the sunset date its route answers 410 Gone with a problem body that points to the current version (the `VersionWithdrawn` response).',
    ...(withdrawn.length > 0
      ? [
          '',
          `Withdrawn: ${withdrawn.map((v) => `${v.name}${v.sunset ? ` (since ${v.sunset})` : ''}`).join(', ')}. Their routes answer 410 Gone.`,
        ]
      : []),
    '',
    '## Errors',
    '',
    `Every error under \`/api/\` is JSON: a problem body (RFC 9457, \`application/problem+json\`, schema \`Problem\`) that names the current version and the address of its index. Its \`type\` is an address on the [API reference](${reference}) that explains it:`,
    '',
    '| `type` | Status | When |',
    '| --- | --- | --- |',
    ...PROBLEM_NAMES.map((problem) => {
      const { status, explanation } = PROBLEM_TYPES[problem];
      return `| [\`${problemTypeUri(reference, problem)}\`](${problemTypeUri(reference, problem)}) | ${status} | ${explanation} |`;
    }),
    '',
    'A method other than GET, HEAD or OPTIONS answers 405. The MCP endpoint answers JSON-RPC errors.',
    '',
    '## Terms of use',
    '',
    `The content belongs to the author of ${name}. Using this API to discover and index it is permitted.`,
  ].join('\n');

  const { license } = config;
  return {
    openapi: '3.1.0',
    info: {
      title: `${name} Content Index API`,
      summary: `Every ${kinds} of the site, in ${wordList(config.languages)}, in one GET.`,
      description: infoDescription,
      version: OPENAPI_INFO_VERSION,
      contact: { name, url: site, email: config.aiPlugin.contactEmail },
      license: {
        name: license.name,
        ...(license.identifier !== undefined && { identifier: license.identifier }),
        ...(license.url !== undefined && { url: license.url }),
      },
    },
    servers: [{ url: site.replace(/\/$/, ''), description: name }],
    // Stated, not left out: no operation needs credentials.
    security: [],
    tags: [
      { name: TAGS.index, description: 'The content index, versioned and latest, and its versions.' },
      { name: TAGS.discovery, description: 'Documents that tell machines what the site offers.' },
      { name: TAGS.mcp, description: 'The Model Context Protocol server.' },
    ],
    paths,
    components: {
      schemas,
      headers: {
        // Only while a version is deprecated does an operation send them.
        ...(served.some((v) => v.state === 'deprecated') && {
          Deprecation: {
            description: 'When the version was deprecated, as `@<unix seconds>` (RFC 9745).',
            schema: { type: 'string' },
          },
          Sunset: {
            description: 'When the version will be withdrawn, as an HTTP date (RFC 8594).',
            schema: { type: 'string' },
          },
        }),
        Link: {
          description:
            'The successor version (`rel="successor-version"`) and, while deprecated, the deprecation notice (`rel="deprecation"`).',
          schema: { type: 'string' },
        },
      },
      responses: {
        [RESPONSES.notFound]: {
          description: `Nothing is published at this path (\`${problemTypeUri(reference, 'not-found')}\`), or the path names a version this API never published (\`${problemTypeUri(reference, 'version-unknown')}\`). The problem body names the current version.`,
          content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
        },
        [RESPONSES.withdrawn]: {
          description: `The version was withdrawn at its sunset date (\`${problemTypeUri(reference, 'version-withdrawn')}\`). The problem body gives the date and points to the current version.`,
          headers: { Link: { $ref: '#/components/headers/Link' } },
          content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
        },
      },
    },
    externalDocs: { description: 'API reference for people', url: config.documentation },
  };
}

function indexOperation(version: ApiVersion, latest: ApiVersion, ref: string): object {
  const successor = `/${indexPath(latest.name)}`;
  const when = version.sunset ? ` on ${version.sunset}` : '';
  const description =
    version.state === 'current'
      ? `The whole index, version ${version.name}: the route for stable integrations. When a newer version is published this route keeps answering unchanged for at least 12 months, then answers 410 Gone.`
      : `Deprecated: ${latest.name} replaces it (\`${successor}\`). Answers unchanged, with \`Deprecation\` and \`Sunset\` headers and \`versions.deprecation\` in the body, until it is withdrawn${when}; then 410 Gone.`;
  return {
    tags: [TAGS.index],
    operationId: `getContentIndex${upperFirst(version.name)}`,
    summary: `Content index, ${version.name}`,
    description,
    ...(version.state === 'deprecated' && { deprecated: true }),
    responses: {
      '200': version.state === 'deprecated' ? indexResponse(ref, deprecationHeaders()) : indexResponse(ref),
    },
  };
}

function schemaOperation(version: ApiVersion): object {
  return {
    tags: [TAGS.index],
    operationId: `getContentIndexSchema${upperFirst(version.name)}`,
    summary: `JSON Schema of the ${version.name} index`,
    description: `The JSON Schema (draft 2020-12) that every ${version.name} body validates against, with \`$id\` set to this address. It follows the version's lifecycle.`,
    ...(version.state === 'deprecated' && { deprecated: true }),
    responses: {
      '200':
        version.state === 'deprecated'
          ? jsonResponse('The JSON Schema.', 'JsonSchemaDocument', deprecationHeaders())
          : jsonResponse('The JSON Schema.', 'JsonSchemaDocument'),
    },
  };
}

function indexResponse(ref: string, headers?: Record<string, object>): object {
  return {
    description: 'The whole index: every item the site publishes.',
    ...(headers && { headers }),
    content: { 'application/json': { schema: { $ref: ref } } },
  };
}

function jsonResponse(description: string, component: string, headers?: Record<string, object>): object {
  return {
    description,
    ...(headers && { headers }),
    content: { 'application/json': { schema: { $ref: componentRef(component) } } },
  };
}

function deprecationHeaders(): Record<string, object> {
  return {
    Deprecation: { $ref: '#/components/headers/Deprecation' },
    Sunset: { $ref: '#/components/headers/Sunset' },
    Link: { $ref: '#/components/headers/Link' },
  };
}

/** `, also in [English](…) and [Portuguese](…)`: the other languages' llms.txt files, when there are any. */
function llmsOthers(config: SiteConfig, at: (path: string) => string): string {
  const others = config.languages
    .filter((lang) => lang !== config.canonicalLanguage)
    .map((lang) => `[${LANGUAGE_NAMES[lang].split(' ').at(-1)}](${at(config.llmsTxt[lang] as string)})`);
  return others.length > 0 ? `, also in ${wordList(others)}` : '';
}

function wordList(words: readonly string[]): string {
  return words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** The index's JSON Schema speaks of the default site (es canonical, en, pt-br): the text says this site's. */
const SCHEMA_DEFAULT_TEXT = {
  addresses: 'with addresses in es, en and pt-br',
  languages: 'es (canonical), en, pt-br',
  canonical: 'canonical (Spanish)',
  url: 'Spanish version',
} as const;

/**
 * The OpenAPI text of the current index schema in this site's languages: where the schema names the
 * default languages, this site's are named; a field for a language the site lacks says so. The JSON
 * Schema published beside the index keeps the contract's text; the shape is the same (docs/versions.md).
 */
function siteLanguageText(schemas: Record<string, object>, config: SiteConfig): void {
  const { languages, canonicalLanguage: canonical } = config;
  if (canonical === 'es' && languages.length === LANGUAGES.length) return;
  const say = (node: unknown, from: string, to: string) => {
    const schema = node as { description?: unknown } | undefined;
    if (typeof schema?.description === 'string') schema.description = schema.description.replace(from, to);
  };
  type Node = { properties?: Record<string, { description?: string }> };
  const index = schemas.ContentIndex as Node | undefined;
  const item = schemas.ContentItem as Node | undefined;
  say(index, SCHEMA_DEFAULT_TEXT.addresses, `with addresses in ${wordList(languages)}`);
  say(
    index?.properties?.languages,
    SCHEMA_DEFAULT_TEXT.languages,
    languages.map((lang) => (lang === canonical ? `${lang} (canonical)` : lang)).join(', '),
  );
  const canonicalName = LANGUAGE_NAMES[canonical];
  for (const key of ['title', 'description']) {
    say(item?.properties?.[key], SCHEMA_DEFAULT_TEXT.canonical, `canonical (${canonicalName})`);
  }
  say(item?.properties?.url, SCHEMA_DEFAULT_TEXT.url, `${canonicalName} version`);
  for (const [lang, field] of [
    ['en', 'url_en'],
    ['pt-br', 'url_pt'],
  ] as const) {
    const property = item?.properties?.[field];
    if (!property) continue;
    if (!languages.includes(lang))
      property.description =
        'Not used by this site: its items never carry it (the site has no pages in that language).';
    else if (lang === canonical)
      property.description = `${LANGUAGE_NAMES[lang]} version: the canonical page, the same address as url.`;
  }
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
