import aiPluginSchema from '../../schemas/ai-plugin.schema.json' with { type: 'json' };
import problemSchema from '../../schemas/problem.schema.json' with { type: 'json' };
import { LANGUAGES, type Language } from '../languages.ts';
import { type SiteConfig, siteName } from '../site-config.ts';
import { indexSchema } from '../validate-index.ts';
import {
  addressOf,
  DISCOVERY_PATHS,
  INDEX_ALIAS_PATH,
  indexPath,
  LLMS_TXT_PATHS,
  schemaPath,
} from './addresses.ts';
import { type ApiVersion, currentVersion } from './api-versions.ts';
import { componentRef, schemaComponents } from './schema-components.ts';

/** The version of this API description (spec section 9.7), not of the index format. */
export const OPENAPI_INFO_VERSION = '1.0.0';

export interface OpenApiInput {
  config: SiteConfig;
  /** Every published version with its lifecycle state; exactly one is current. */
  versions: readonly ApiVersion[];
  /** The JSON Schema of a version's index body. Default: the schemas the build validates with. */
  schemaOf?: (version: string) => object | undefined;
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

/** OpenAPI 3.1 description of every endpoint in the spec, with component schemas taken from the repo's JSON Schemas. */
export function openApiDocument(input: OpenApiInput): object {
  const { config, versions } = input;
  const schemaOf = input.schemaOf ?? indexSchema;
  const site = config.site;
  const name = siteName(config);
  const latest = currentVersion(versions);
  const at = (path: string) => addressOf(site, path);

  // The current version's schemas get the plain names; an older version whose schema differs gets
  // its own, suffixed set (ContentIndexV1…), so both can be described side by side.
  const latestSchema = schemaOf(latest.name);
  if (!latestSchema) throw new Error(`no JSON Schema for the current version ${latest.name}`);
  const schemas: Record<string, object> = schemaComponents(latestSchema, { root: 'ContentIndex' });
  const indexRef = new Map<string, string>();
  for (const version of versions) {
    if (version.state === 'withdrawn') continue;
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
  Object.assign(schemas, schemaComponents(problemSchema, { root: 'Problem' }));
  Object.assign(schemas, schemaComponents(aiPluginSchema, { root: 'AiPluginManifest' }));

  const paths: Record<string, object> = {};
  for (const version of versions) {
    paths[`/${indexPath(version.name)}`] = {
      get: versionedOperation(version, latest, indexRef.get(version.name), at),
    };
  }
  paths[`/${INDEX_ALIAS_PATH}`] = {
    get: {
      tags: [TAGS.index],
      operationId: 'getContentIndex',
      summary: 'Content index (latest version)',
      description: `Alias that always follows the latest version, today ${latest.name}: the same body as \`/${indexPath(latest.name)}\`. Clients that need stability use the versioned route.`,
      responses: { '200': indexResponse(indexRef.get(latest.name) ?? componentRef('ContentIndex')) },
    },
  };
  paths[`/${DISCOVERY_PATHS.openapi}`] = {
    get: {
      tags: [TAGS.discovery],
      operationId: 'getOpenApiDescription',
      summary: 'This API description',
      description: 'The OpenAPI 3.1 document you are reading, for code generators and agents.',
      responses: {
        '200': {
          description: 'An OpenAPI 3.1 document.',
          content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'info'] } } },
        },
      },
    },
  };
  paths[`/${DISCOVERY_PATHS.aiPlugin}`] = {
    get: {
      tags: [TAGS.discovery],
      operationId: 'getAiPluginManifest',
      summary: 'Manifest for AI agents',
      description:
        'The AI plugin manifest agents probe for: names, descriptions and the address of this document.',
      responses: {
        '200': {
          description: 'The manifest.',
          content: { 'application/json': { schema: { $ref: componentRef('AiPluginManifest') } } },
        },
      },
    },
  };
  for (const lang of LANGUAGES) {
    paths[`/${LLMS_TXT_PATHS[lang]}`] = {
      get: {
        tags: [TAGS.discovery],
        operationId: lang === 'es' ? 'getLlmsTxt' : `getLlmsTxt${lang.split('-').map(upperFirst).join('')}`,
        summary:
          lang === 'es' ? 'Guide for language models' : `Guide for language models (${LANGUAGE_NAMES[lang]})`,
        description:
          lang === 'es'
            ? 'Markdown in the llms.txt format: the site, how to use this API and the MCP server, and one line per post, project and tip with its Spanish (canonical) title, address and description.'
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
        'The MCP server, with the tools `list_content`, `search_content` and `content_stats`. MCP clients connect to this address with the Streamable HTTP transport; a plain GET answers with a JSON description of the server and its tools.',
      responses: {
        '200': {
          description: 'A description of the server: name, transport, protocol revisions and tools.',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  };

  const infoDescription = [
    `Read-only index of every post, project and tip published on [${name}](${site}), with the address of each page in Spanish (es, canonical), English (en) and Brazilian Portuguese (pt-br). Every endpoint answers GET, needs no authentication and takes no parameters; one request to an index endpoint returns the whole index.`,
    '',
    `- **Integrations** read \`/${indexPath(latest.name)}\` (stable within ${latest.name}); \`/${INDEX_ALIAS_PATH}\` follows the latest version.`,
    `- **Language models** read [llms.txt](${at(LLMS_TXT_PATHS.es)}), also in [English](${at(LLMS_TXT_PATHS.en)}) and [Portuguese](${at(LLMS_TXT_PATHS['pt-br'])}).`,
    `- **AI agents** use the [MCP server](${at(DISCOVERY_PATHS.mcp)}) (tools \`list_content\`, \`search_content\`, \`content_stats\`) or the [AI plugin manifest](${at(DISCOVERY_PATHS.aiPlugin)}).`,
    `- **Validators** use the [JSON Schema of the ${latest.name} index](${at(schemaPath(latest.name))}).`,
    '',
    '## Versions',
    '',
    'Within a version the shape is stable: fields are only ever added, never removed or retyped, so ignore fields you do not know. When a newer version is published, the previous one keeps being served unchanged for at least 12 months; meanwhile its responses carry the `Deprecation` and `Sunset` headers and its `versions.deprecation` field announces the successor. After the sunset date its route answers 410 Gone with a problem body that points to the current version.',
    '',
    '## Terms of use',
    '',
    `The content belongs to the author of ${name}. Using this API to discover and index it is permitted.`,
  ].join('\n');

  return {
    openapi: '3.1.0',
    info: {
      title: `${name} Content Index API`,
      summary: 'Every post, project and tip of the site, in es, en and pt-br, in one GET.',
      description: infoDescription,
      version: OPENAPI_INFO_VERSION,
      contact: { email: config.aiPlugin.contactEmail },
    },
    servers: [{ url: site.replace(/\/$/, ''), description: name }],
    tags: [
      { name: TAGS.index, description: 'The content index, versioned and latest.' },
      { name: TAGS.discovery, description: 'Documents that tell machines what the site offers.' },
      { name: TAGS.mcp, description: 'The Model Context Protocol server.' },
    ],
    paths,
    components: { schemas },
    externalDocs: { description: 'API reference for people', url: at(DISCOVERY_PATHS.docs) },
  };
}

function versionedOperation(
  version: ApiVersion,
  latest: ApiVersion,
  ref: string | undefined,
  at: (path: string) => string,
): object {
  const successor = `/${indexPath(latest.name)}`;
  const when = version.sunset ? ` on ${version.sunset}` : '';
  const description = {
    current: `The whole index, version ${version.name}: the route for stable integrations. When a newer version is published this route keeps answering unchanged for at least 12 months, then answers 410 Gone.`,
    deprecated: `Deprecated: ${latest.name} replaces it (\`${successor}\`). Answers unchanged, with \`Deprecation\` and \`Sunset\` headers and \`versions.deprecation\` in the body, until it is withdrawn${when}; then 410 Gone.`,
    withdrawn: `Withdrawn${when}: answers 410 Gone with a problem body that points to ${latest.name} (\`${successor}\`).`,
  }[version.state];
  const gone = {
    description:
      'Gone: the version was withdrawn at its sunset date. The problem body points to the current version.',
    headers: {
      Link: {
        description: `\`<${at(indexPath(latest.name))}>; rel="successor-version"\`: the current version's route.`,
        schema: { type: 'string' },
      },
    },
    content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
  };
  const responses: Record<string, object> = {};
  if (version.state !== 'withdrawn' && ref) {
    responses['200'] =
      version.state === 'deprecated' ? indexResponse(ref, deprecationHeaders()) : indexResponse(ref);
  }
  responses['410'] = gone;
  return {
    tags: [TAGS.index],
    operationId: `getContentIndex${upperFirst(version.name)}`,
    summary: `Content index, ${version.name}`,
    description,
    ...(version.state !== 'current' && { deprecated: true }),
    responses,
  };
}

function indexResponse(ref: string, headers?: Record<string, object>): object {
  return {
    description: 'The whole index: every post, project and tip.',
    ...(headers && { headers }),
    content: { 'application/json': { schema: { $ref: ref } } },
  };
}

function deprecationHeaders(): Record<string, object> {
  return {
    Deprecation: {
      description: 'When the version was deprecated, as `@<unix seconds>` (RFC 9745).',
      schema: { type: 'string' },
    },
    Sunset: {
      description: 'When the version will be withdrawn, as an HTTP date (RFC 8594).',
      schema: { type: 'string' },
    },
    Link: {
      description:
        'The successor version (`rel="successor-version"`) and the deprecation notice (`rel="deprecation"`).',
      schema: { type: 'string' },
    },
  };
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
