import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiVersion } from '../../build/core/discovery/api-versions.ts';
import { openApiDocument } from '../../build/core/discovery/openapi.ts';
import { type BuildResult, build } from '../../build/index.ts';
import aiPluginSchema from '../../build/schemas/ai-plugin.schema.json' with { type: 'json' };
import problemSchema from '../../build/schemas/problem.schema.json' with { type: 'json' };
import indexSchemaV1 from '../../build/schemas/v1/content-index.schema.json' with { type: 'json' };
import { clientAjv } from '../helpers/ajv.ts';
import { PROJECT_ROOT } from '../helpers/site.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read as plain JSON
type Doc = any;

let out: string;
let result: BuildResult;
let doc: Doc;

beforeAll(async () => {
  out = join(await mkdtemp(join(tmpdir(), 'content-index-openapi-')), 'public');
  result = await build({ root: PROJECT_ROOT, out });
  doc = JSON.parse(await readFile(join(out, 'openapi.json'), 'utf8'));
});
afterAll(() => rm(dirname(out), { recursive: true, force: true }));

async function expectValidOpenApi(document: unknown): Promise<void> {
  const validator = new Validator();
  const outcome = await validator.validate(structuredClone(document) as Record<string, unknown>);
  expect(outcome.errors ?? [], JSON.stringify(outcome.errors, null, 2)).toEqual([]);
  expect(outcome.valid).toBe(true);
  expect(validator.version).toBe('3.1');
}

/** An ajv instance that resolves `#/components/schemas/…` inside the OpenAPI document. */
function responseValidator(document: Doc, path: string, status = '200', media = 'application/json') {
  const ajv = clientAjv();
  ajv.addSchema(document, 'urn:test:openapi');
  const pointer = ['paths', path, 'get', 'responses', status, 'content', media, 'schema']
    .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/');
  return ajv.compile({ $ref: `urn:test:openapi#/${pointer}` });
}

/** The reverse of the build's transform: component refs back to `#/$defs/…`. */
function asJsonSchemaDefs(component: unknown): unknown {
  return JSON.parse(JSON.stringify(component).replaceAll('"#/components/schemas/', '"#/$defs/'));
}

function withoutBuildAnnotations(schema: object): unknown {
  return JSON.parse(
    JSON.stringify(schema, (key, value) =>
      key === '$schema' || key === '$id' || key.startsWith('x-') ? undefined : value,
    ),
  );
}

describe('/openapi.json', () => {
  it('passes a maintained OpenAPI 3.1 validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expectValidOpenApi(doc);
    // The validator is not vacuous: a document missing a required field fails it.
    const broken = structuredClone(doc);
    delete broken.info.version;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('validates the real content.json of both index routes against its response schemas', async () => {
    const body = JSON.parse(await readFile(join(out, 'api/v1/content.json'), 'utf8'));
    for (const path of ['/api/v1/content.json', '/api/content.json']) {
      const validate = responseValidator(doc, path);
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    }
    // The response schema is not vacuous: a body without `content` fails it.
    const validate = responseValidator(doc, '/api/content.json');
    expect(validate({ ...body, content: undefined, site: 'not a uri' })).toBe(false);
  });

  it('validates the real ai-plugin.json against its response schema', async () => {
    const manifest = JSON.parse(await readFile(join(out, '.well-known/ai-plugin.json'), 'utf8'));
    const validate = responseValidator(doc, '/.well-known/ai-plugin.json');
    expect(validate(manifest), JSON.stringify(validate.errors)).toBe(true);
  });

  it('describes every served document, version 1.0.0, on the site address, stating that none needs security', () => {
    expect(Object.keys(doc.paths)).toEqual([
      '/api/v1/content.json',
      '/api/v1/schema.json',
      '/api/content.json',
      '/api/versions.json',
      '/openapi.json',
      '/.well-known/ai-plugin.json',
      '/llms.txt',
      '/en/llms.txt',
      '/pt-br/llms.txt',
      '/mcp',
      '/mcp/server-card',
    ]);
    for (const item of Object.values(doc.paths) as Doc[]) {
      expect(Object.keys(item)).toEqual(['get']); // read-only: GET alone
      expect(item.get.parameters).toBeUndefined();
      expect(item.get.requestBody).toBeUndefined();
      expect(Object.keys(item.get.responses)).toEqual(['200']);
    }
    expect(doc.paths['/api/content.json'].get.operationId).toBe('getContentIndex');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: 'https://example.com', description: 'Código y Neuronas' }]);
    expect(doc.security).toEqual([]);
    expect(doc.components.securitySchemes).toBeUndefined();
    expect(doc.info.contact).toEqual({
      name: 'Código y Neuronas',
      url: 'https://example.com/',
      email: 'hola@example.com',
    });
    expect(doc.info.license).toEqual({ name: 'Terms of use', url: 'https://example.com/aviso-legal/' });
    expect(doc.externalDocs.url).toBe(result.config.documentation);
  });

  it('types every JSON response with a real schema, none a bare object', () => {
    const refs = Object.values(doc.paths).map((item) => {
      const [content] = Object.values((item as Doc).get.responses['200'].content) as Doc[];
      return content.schema.$ref ?? content.schema.type;
    });
    expect(refs).toEqual([
      '#/components/schemas/ContentIndex',
      '#/components/schemas/JsonSchemaDocument',
      '#/components/schemas/ContentIndex',
      '#/components/schemas/VersionManifest',
      '#/components/schemas/OpenApiDocument',
      '#/components/schemas/AiPluginManifest',
      'string',
      'string',
      'string',
      '#/components/schemas/McpServerDescription',
      '#/components/schemas/McpServerCard',
    ]);
  });

  it('leaves no object schema without properties closed by omission (generators would type it Record<string, never>)', () => {
    const closed: string[] = [];
    const walk = (node: Doc, at: string) => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${at}/${i}`);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      const free = node.type === 'object' && !node.properties && !node.additionalProperties && !node.$ref;
      if (free && !node.patternProperties && !node.oneOf && !node.anyOf && !node.allOf) closed.push(at);
      for (const [key, value] of Object.entries(node)) walk(value, `${at}/${key}`);
    };
    walk(doc.components.schemas, '#/components/schemas');
    expect(closed).toEqual([]);
  });

  it('validates its own bytes, the published schema and the manifest against their response schemas', async () => {
    for (const [path, file] of [
      ['/openapi.json', 'openapi.json'],
      ['/api/v1/schema.json', 'api/v1/schema.json'],
      ['/api/versions.json', 'api/versions.json'],
    ] as const) {
      const body = JSON.parse(await readFile(join(out, file), 'utf8'));
      const validate = responseValidator(doc, path);
      expect(validate(body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('takes its component schemas from the JSON Schema files the build validates with', () => {
    const schemas = doc.components.schemas;
    const { $defs, ...root } = indexSchemaV1 as { $defs: Record<string, unknown> };
    expect(asJsonSchemaDefs(schemas.ContentIndex)).toEqual(withoutBuildAnnotations(root));
    for (const name of ['ContentItem', 'Section', 'Counts', 'Versions', 'Deprecation']) {
      expect(asJsonSchemaDefs(schemas[name]), name).toEqual(withoutBuildAnnotations($defs[name] as object));
    }
    expect(schemas.Problem).toEqual(withoutBuildAnnotations(problemSchema));
    expect(schemas.AiPluginManifest).toEqual(withoutBuildAnnotations(aiPluginSchema));
    expect(Object.keys(schemas).sort()).toEqual(
      [
        'AiPluginManifest',
        'ContentIndex',
        'ContentItem',
        'Counts',
        'Deprecation',
        'JsonSchemaDocument',
        'ManifestVersion',
        'McpServerCard',
        'McpServerDescription',
        'McpTool',
        'OpenApiDocument',
        'Problem',
        'Section',
        'VersionManifest',
        'Versions',
      ].sort(),
    );
  });

  it('documents the lifecycle problems once, as reusable responses and in the text, with their reference anchors', () => {
    expect(doc.paths['/api/v1/content.json'].get.deprecated).toBeUndefined();
    const { NotFound, VersionWithdrawn } = doc.components.responses;
    for (const response of [NotFound, VersionWithdrawn]) {
      expect(response.content['application/problem+json'].schema).toEqual({
        $ref: '#/components/schemas/Problem',
      });
    }
    expect(VersionWithdrawn.headers.Link).toEqual({ $ref: '#/components/headers/Link' });
    for (const anchor of ['not-found', 'version-unknown', 'version-withdrawn']) {
      expect(doc.info.description).toContain(`(https://example.com/docs/#${anchor})`);
    }
    expect(doc.info.description).toContain('## Errors');
  });

  it('describes llms.txt as text and links the documents people and agents need', () => {
    expect(Object.keys(doc.paths['/llms.txt'].get.responses['200'].content)).toEqual(['text/plain']);
    for (const link of [
      'https://example.com/llms.txt',
      'https://example.com/mcp',
      'https://example.com/api/v1/schema.json',
      'https://example.com/.well-known/ai-plugin.json',
    ]) {
      expect(doc.info.description).toContain(`](${link})`);
    }
  });
});

describe('the OpenAPI document for other version lifecycles', () => {
  const config = () => result.config;

  it('marks a deprecated version deprecated, keeps its 200 with the deprecation headers, and stays valid', async () => {
    const versions: ApiVersion[] = [
      { name: 'v1', state: 'deprecated', sunset: '2027-09-01T00:00:00Z' },
      { name: 'v2', state: 'current' },
    ];
    const document: Doc = openApiDocument({ config: config(), versions, schemaOf: () => indexSchemaV1 });
    await expectValidOpenApi(document);
    const v1 = document.paths['/api/v1/content.json'].get;
    const v2 = document.paths['/api/v2/content.json'].get;
    expect(v1.deprecated).toBe(true);
    expect(v1.operationId).toBe('getContentIndexV1');
    expect(Object.keys(v1.responses)).toEqual(['200']);
    expect(v1.responses['200'].headers).toEqual({
      Deprecation: { $ref: '#/components/headers/Deprecation' },
      Sunset: { $ref: '#/components/headers/Sunset' },
      Link: { $ref: '#/components/headers/Link' },
    });
    expect(document.paths['/api/v1/schema.json'].get.deprecated).toBe(true);
    expect(v1.description).toContain('2027-09-01T00:00:00Z');
    expect(v2.deprecated).toBeUndefined();
    expect(v2.responses['200'].headers).toBeUndefined();
    expect(Object.keys(v2.responses)).toEqual(['200']);
    const alias = document.paths['/api/content.json'].get;
    expect(alias.deprecated).toBeUndefined();
    expect(alias.description).toContain('today v2');
  });

  it('leaves a withdrawn version’s routes out (they serve no index), and gives a version with its own schema its own components', async () => {
    const v2Schema = structuredClone(indexSchemaV1) as Doc;
    v2Schema.properties.extra = { type: 'string' };
    const versions: ApiVersion[] = [
      { name: 'v1', state: 'withdrawn', sunset: '2027-09-01T00:00:00Z' },
      { name: 'v2', state: 'deprecated' },
      { name: 'v3', state: 'current' },
    ];
    const document: Doc = openApiDocument({
      config: config(),
      versions,
      schemaOf: (v) => (v === 'v2' ? v2Schema : indexSchemaV1),
    });
    await expectValidOpenApi(document);
    expect(document.paths['/api/v1/content.json']).toBeUndefined();
    expect(document.paths['/api/v1/schema.json']).toBeUndefined();
    expect(document.info.description).toContain('Withdrawn: v1 (since 2027-09-01T00:00:00Z).');
    const v2 = document.paths['/api/v2/content.json'].get;
    expect(v2.deprecated).toBe(true);
    expect(v2.responses['200'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ContentIndexV2',
    );
    expect(document.components.schemas.ContentIndexV2.properties.extra).toEqual({ type: 'string' });
    expect(document.components.schemas.ContentIndexV2.properties.content.items.$ref).toBe(
      '#/components/schemas/ContentItemV2',
    );
    expect(
      document.paths['/api/v3/content.json'].get.responses['200'].content['application/json'].schema.$ref,
    ).toBe('#/components/schemas/ContentIndex');
  });

  it('refuses a version list without exactly one current version', () => {
    expect(() =>
      openApiDocument({
        config: config(),
        versions: [
          { name: 'v1', state: 'current' },
          { name: 'v2', state: 'current' },
        ],
      }),
    ).toThrow(/exactly one current/);
  });
});
