import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every response an end-to-end test receives is checked against the OpenAPI document the
 * service serves (/api/v1/openapi.json): its status must be documented for the operation, its
 * content type must be one the operation documents for that status, and its body must
 * validate against that schema (JSON Schema 2020-12, as OpenAPI 3.1 says). A mismatch throws
 * from TestApp.request, so the test that made the request fails and names the drift.
 *
 * The document is fetched once per run: the first test file to need it writes it to the
 * run's cache (a directory the global setup makes), the others read it.
 */
export const OPENAPI_PATH = '/api/v1/openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  responses: Record<string, any>;
}

export interface ObservedResponse {
  method: string;
  /** path with query string */
  url: string;
  status: number;
  contentType: string | null;
  text: string;
  body: unknown;
}

export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: any) {
    // strict off: OpenAPI adds keywords JSON Schema does not know (example, discriminator, xml);
    // they never change what validates. Ajv would honour a 3.0-style `nullable: true`; 3.1 has
    // no such keyword (tools ignore it), so it is hidden from Ajv and admits no null here either.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true });
    addFormats(this.ajv);
    // JSON.parse rounds integers beyond 2^53 (the API sends them exactly): still integers in range.
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 63 });
    this.ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
    for (const f of ['double', 'float', 'binary', 'byte', 'password']) this.ajv.addFormat(f, true);
    this.ajv.addSchema({ ...withoutNullable(document), $id: 'openapi.json' });
    this.operations = Object.entries<Record<string, any>>(document.paths ?? {})
      .flatMap(([template, item]) =>
        Object.entries(item)
          .filter(([method]) => HTTP_METHODS.includes(method))
          .map(([method, op]) => {
            const segments = template.split('/');
            const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
            return {
              method,
              template,
              pattern: new RegExp(`^${source}/?$`),
              literalSegments: segments.filter((s) => !s.startsWith('{')).length,
              responses: op.responses ?? {},
            };
          }),
      )
      // a literal segment beats a parameter (/payments/stats before /payments/{id})
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The run's document: read from the run's cache, or fetched from `baseUrl` and cached. */
  static async load(baseUrl: string): Promise<OpenApiContract> {
    const cacheDir = process.env.OPENAPI_CONTRACT_CACHE;
    const cached = cacheDir ? join(cacheDir, 'openapi.json') : undefined;
    if (cached && existsSync(cached)) return new OpenApiContract(JSON.parse(readFileSync(cached, 'utf8')));
    const res = await fetch(`${baseUrl}${OPENAPI_PATH}`);
    if (res.status !== 200) throw new Error(`GET ${OPENAPI_PATH} answered ${res.status}`);
    const text = await res.text();
    if (cached) {
      // write-then-rename: a worker reading at the same time sees all of it or nothing
      const tmp = `${cached}.${process.pid}`;
      writeFileSync(tmp, text);
      renameSync(tmp, cached);
    }
    return new OpenApiContract(JSON.parse(text));
  }

  operationFor(method: string, path: string): Operation | undefined {
    const m = method.toLowerCase();
    return this.operations.find((op) => op.method === m && op.pattern.test(path));
  }

  /** What is wrong with this response according to the document; [] when it conforms. */
  check(res: ObservedResponse): string[] {
    const path = res.url.split('?')[0];
    const op = this.operationFor(res.method, path);
    // Not an operation of the API (health, metrics, docs, an unknown route): nothing to check against.
    if (!op) return [];
    const where = `${res.method.toUpperCase()} ${op.template} → ${res.status}`;
    const key = op.responses[String(res.status)] ? String(res.status) : op.responses[`${String(res.status)[0]}XX`] ? `${String(res.status)[0]}XX` : op.responses.default ? 'default' : undefined;
    if (!key) return [`${where}: status ${res.status} is not documented (documented: ${Object.keys(op.responses).join(', ')}); body: ${res.text.slice(0, 300)}`];
    const response = this.deref(op.responses[key]);
    const content: Record<string, any> = response.content ?? {};
    const mediaTypes = Object.keys(content);
    const type = (res.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (mediaTypes.length === 0) {
      return res.text.length > 0 ? [`${where}: documented without a body, but a ${type || 'untyped'} body came: ${res.text.slice(0, 200)}`] : [];
    }
    const media = mediaTypes.find((t) => t.toLowerCase() === type) ?? mediaTypes.find((t) => matchesWildcard(t, type));
    if (!media) return [`${where}: content type ${type || '(none)'} is not documented (documented: ${mediaTypes.join(', ')})`];
    if (!type.includes('json')) return [];
    const pointer = `#/paths/${escape(op.template)}/${op.method}/responses/${escape(key)}`;
    const responseRef = op.responses[key].$ref as string | undefined;
    const schemaPointer = `${responseRef ? responseRef : pointer}/content/${escape(media)}/schema`;
    if (!content[media].schema) return [];
    const validate = this.validator(schemaPointer);
    if (validate(res.body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where} (${media}): body${e.instancePath || ''} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''} [schema ${e.schemaPath}]`,
    );
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  private deref(node: any): any {
    let current = node;
    for (let i = 0; current?.$ref && i < 10; i++) {
      current = (current.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((n: any, s) => n?.[s], this.document);
    }
    return current;
  }
}

function withoutNullable(node: any): any {
  if (Array.isArray(node)) return node.map(withoutNullable);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'nullable' && typeof v === 'boolean')).map(([k, v]) => [k, withoutNullable(v)]));
}

/** One JSON Pointer segment, as it goes in a URI fragment. */
function escape(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function matchesWildcard(documented: string, actual: string): boolean {
  if (documented === '*/*') return true;
  const [type, sub] = documented.split('/');
  return sub === '*' && actual.startsWith(`${type}/`);
}
