// Request decoding: URL paths to resource routes, query parameters with Go's boolean rules,
// and bodies (JSON, YAML or Kubernetes protobuf objects; JSON or YAML patches) with size and
// depth limits.
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, StatusError, unsupportedMediaType } from '../../apimachinery/errors/index.ts';
import { parseJsonKeepingFloatLiterals } from '../../apimachinery/json/index.ts';
import {
  jsonSyntaxMessage,
  UndecodableBody,
  versionKindParseMessage,
  yamlSyntaxMessage,
} from '../registry/body-errors.ts';
import type { PatchType } from '../registry/patching.ts';
import { decodeProtobuf, PROTOBUF_MEDIA_TYPE, unknownFieldMessages } from './protobuf/index.ts';
import { parseMediaType } from './media-type.ts';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;
export const MAX_JSON_DEPTH = 500;

export interface ResourceRoute {
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
  /** `/api/v1/watch/...` legacy watch paths. */
  legacyWatch: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * Parses `/api/v1/...` and `/apis/<group>/<version>/...` resource paths.
 * Returns undefined for paths that are not resource paths (discovery etc.).
 */
export function parseResourcePath(path: string): ResourceRoute | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
  }
  try {
    rest = rest.map((p) => decodeURIComponent(p));
  } catch {
    // A malformed %-escape is the client's fault (Go's server answers 400 too), not a 500.
    throw badRequest(`invalid URL escape in path: ${path.slice(0, 200)}`);
  }
  if (rest.length === 0) return undefined;
  // /namespaces/{ns}/{resource}/... unless it is the namespace's own subresource.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2]))) {
    const [, namespace, resource, name, subresource, ...extra] = rest;
    if (extra.length > 0) return undefined;
    return { group, version, namespace, resource, name, subresource, legacyWatch };
  }
  const [resource, name, subresource, ...extra] = rest;
  if (extra.length > 0) return undefined;
  return { group, version, resource, name, subresource, legacyWatch };
}

/** strconv.ParseBool: what Go clients and the Python client send (`True`, `1`, `t`...). */
export function parseBool(value: string, name: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(value)) return false;
  throw badRequest(`invalid boolean value for ${name}: ${JSON.stringify(value)}`);
}

export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  return v === null ? undefined : parseBool(v, name);
}

export function queryInt(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid value for ${name}: ${JSON.stringify(v)}`);
  return Number(v);
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
}

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Where protobuf fields we cannot decode are reported; a RequestContext fits. */
export interface BodyValidation {
  fieldValidation: string;
  warnings: string[];
}

/**
 * Decodes a create/update body; JSON, YAML and protobuf are accepted, as kube-apiserver does.
 * Protobuf fields without a table are dropped, and reported through `validation` when given.
 * Text that does not parse throws UndecodableBody with the Go decoder's message, which the
 * caller wraps the way its kube handler does.
 */
export function decodeBody(
  raw: Buffer,
  contentType: string | undefined,
  accepted: Record<string, BodyFormat>,
  validation?: BodyValidation,
): unknown {
  // An absent or empty Content-Type means the first accepted type; one Go cannot parse, none.
  const type = contentType ? parseMediaType(contentType) : 'application/json';
  const format = type !== undefined && Object.hasOwn(accepted, type) ? accepted[type] : undefined;
  if (!format) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format - accepted media types include: ${Object.keys(accepted).join(', ')}`,
    );
  }
  if (format === 'protobuf') {
    if (raw.length === 0) throw badRequest('the body of the request is empty');
    const { object, unknownFields } = decodeProtobuf(raw);
    checkDepth(object);
    const messages = unknownFieldMessages(unknownFields);
    if (messages.length > 0 && validation?.fieldValidation === 'Strict') {
      throw badRequest(`strict decoding error: ${messages.join(', ')}`);
    }
    if (messages.length > 0 && validation?.fieldValidation === 'Warn') validation.warnings.push(...messages);
    return object;
  }
  const text = raw.toString('utf8');
  let value: unknown;
  if (format === 'json') {
    try {
      value = parseJsonKeepingFloatLiterals(text);
    } catch {
      throw new UndecodableBody(versionKindParseMessage(text));
    }
  } else {
    if (text.trim() === '') throw badRequest('the body of the request is empty');
    try {
      value = parseYamlBounded(text);
    } catch (e) {
      if (e instanceof StatusError) throw e;
      throw new UndecodableBody(yamlSyntaxMessage(e));
    }
  }
  checkDepth(value);
  return value;
}

/** Decodes a PATCH body: YAML for apply patches, JSON for the others. */
export function decodePatch(raw: Buffer, patchType: PatchType): unknown {
  const text = raw.toString('utf8');
  let patch: unknown;
  try {
    patch = patchType === 'apply' ? parseYamlBounded(text) : JSON.parse(text);
  } catch (e) {
    if (e instanceof StatusError) throw e;
    // handlers/patch.go: the Go decoders' errors after "error decoding patch: ".
    const why =
      patchType === 'apply' ? `error converting YAML to JSON: ${yamlSyntaxMessage(e)}` : jsonSyntaxMessage(text);
    throw badRequest(`error decoding patch: ${why}`);
  }
  checkDepth(patch);
  return patch;
}

/**
 * The yaml parser recurses once per nesting level, and near a stack overflow V8 can abort the
 * whole process (a fatal "RegExpCompiler Allocation failed") instead of throwing; so the nesting
 * is bounded on the text first. Flow brackets, block indentation and `- ` entries all nest; the
 * estimate may overcount (brackets in plain scalars), which only matters past MAX_JSON_DEPTH.
 */
function parseYamlBounded(text: string): unknown {
  let flow = 0;
  let quote = '';
  const indents: number[] = [];
  let atLineStart = true;
  let col = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      atLineStart = true;
      col = 0;
      continue;
    }
    if (atLineStart) {
      if (c === ' ' || c === '-' || c === '\t') {
        // `- ` opens a nested sequence entry at this column.
        if (c === '-' && (text[i + 1] === ' ' || text[i + 1] === '\n')) {
          while (indents.length > 0 && indents[indents.length - 1] >= col) indents.pop();
          indents.push(col);
        }
        col++;
        continue;
      }
      atLineStart = false;
      while (indents.length > 0 && indents[indents.length - 1] >= col) indents.pop();
      indents.push(col);
    }
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') flow++;
    else if ((c === '}' || c === ']') && flow > 0) flow--;
    if (flow + indents.length > MAX_JSON_DEPTH)
      throw badRequest(`the body of the request could not be decoded: exceeded max depth of ${MAX_JSON_DEPTH}`);
  }
  return parseYaml(text, { maxAliasCount: 100 });
}

/** Rejects pathologically nested bodies before recursive code walks them. */
function checkDepth(value: unknown): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > MAX_JSON_DEPTH)
      throw badRequest(`the body of the request could not be decoded: exceeded max depth of ${MAX_JSON_DEPTH}`);
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}

export const OBJECT_BODY_TYPES: Record<string, BodyFormat> = {
  'application/json': 'json',
  'application/yaml': 'yaml',
  [PROTOBUF_MEDIA_TYPE]: 'protobuf',
};
