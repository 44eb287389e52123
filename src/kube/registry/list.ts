// LIST: selectors, paging with continue tokens at a stable resourceVersion, and the
// resourceVersion/resourceVersionMatch semantics. The result is assembled from stored JSON text
// so a large list is never re-serialized.
import { badRequest, StatusError } from '../../apimachinery/errors/index.ts';
import { RevisionCompactedError, type Page, type Storage, type StoredObject } from '../storage/storage.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { listPrefix, splitKey } from './keys.ts';
import type { ResourceDef } from './resource.ts';
import type { ObjectFilter } from './filter.ts';
import { apiVersionOf } from './resource.ts';

export interface ListOptions {
  filter: ObjectFilter;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  revision: number;
  items: StoredObject[];
  continueToken?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  v: 'meta.k8s.io/v1';
  rv: number;
  start: string;
}

function encodeContinue(rv: number, start: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv, start };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(raw: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as ContinueToken;
    if (t.v !== 'meta.k8s.io/v1' || typeof t.rv !== 'number' || typeof t.start !== 'string') throw new Error('bad');
    return t;
  } catch {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
}

function expiredContinue(): StatusError {
  return new StatusError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );
}

export function parseRevision(raw: string, what = 'resourceVersion'): number {
  if (!/^\d+$/.test(raw)) throw badRequest(`invalid ${what}: ${raw}`);
  return Number(raw);
}

export function listObjects(
  storage: Storage,
  def: ResourceDef,
  namespace: string | undefined,
  opts: ListOptions,
): ListResult {
  const prefix = listPrefix(def, namespace);
  const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
  let revision = storage.currentRevision();
  let after: string | undefined;

  if (opts.continueToken) {
    if (opts.resourceVersion !== undefined && opts.resourceVersion !== '') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    const token = decodeContinue(opts.continueToken);
    revision = token.rv;
    after = token.start || undefined;
  } else {
    const rv = opts.resourceVersion;
    // The combinations were checked by validateListOptions (list-options.ts) before.
    if (rv !== undefined && rv !== '' && rv !== '0') {
      const wanted = parseRevision(rv);
      if (wanted > revision) {
        throw new StatusError(504, 'Timeout', `Too large resource version: ${wanted}, current: ${revision}`, {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        });
      }
      if (opts.resourceVersionMatch === 'Exact') revision = wanted;
    }
  }

  const read = (from: string | undefined, count: number | undefined): Page => {
    try {
      return storage.listPage(prefix, { revision, after: from, limit: count });
    } catch (e) {
      if (!(e instanceof RevisionCompactedError)) throw e;
      if (opts.continueToken) throw expiredContinue();
      throw new StatusError(410, 'Expired', `too old resource version: ${revision} (${e.oldest})`);
    }
  };
  const matches = (item: StoredObject): boolean => opts.filter.matchesStored(def, item, splitKey(def, item.key));
  const result: ListResult = { revision, items: [] };

  if (opts.filter.isEverything) {
    const page = read(after, limit);
    result.items = page.items;
    if (limit !== undefined && page.remaining > 0) {
      // As kube's store, remainingItemCount only when nothing is filtered out.
      result.remainingItemCount = page.remaining;
      result.continueToken = encodeContinue(revision, page.items[page.items.length - 1].key);
    }
    return result;
  }
  // A selector: read in chunks (as kube's store does from etcd) until the page is full, then
  // look on for one more match, so that a token is given only when a later object matches and
  // a paged client never ends on an empty page. Counting under a selector would mean matching
  // every later object on every page, so there is no remainingItemCount (nor has kube one).
  const chunk = Math.max(limit ?? 0, 500);
  for (let from = after; ;) {
    const page = read(from, limit === undefined ? undefined : chunk);
    for (const item of page.items) {
      if (!matches(item)) continue;
      if (limit !== undefined && result.items.length >= limit) {
        result.continueToken = encodeContinue(revision, result.items[result.items.length - 1].key);
        return result;
      }
      result.items.push(item);
    }
    if (page.remaining === 0 || page.items.length === 0) return result;
    from = page.items[page.items.length - 1].key;
  }
}

/** `{"kind":"XList","apiVersion":...,"metadata":{...},"items":[...]}` from stored JSON texts. */
export function listJson(def: ResourceDef, result: ListResult, present: (json: string) => string): string {
  const parts: string[] = new Array(result.items.length);
  for (let i = 0; i < result.items.length; i++) parts[i] = present(result.items[i].json);
  return listBody(def, result, parts);
}

/** The same, from the items' served JSON texts. */
export function listBody(def: ResourceDef, result: ListResult, items: readonly string[]): string {
  const metadata: JsonObject = { resourceVersion: String(result.revision) };
  if (result.continueToken) metadata.continue = result.continueToken;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  const head = `{"kind":${JSON.stringify(def.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(def))},"metadata":${JSON.stringify(metadata)},"items":[`;
  return `${head}${items.join(',')}]}`;
}
