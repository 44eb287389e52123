// Create-or-patch of the objects we deploy, comparing the way apimachinery's
// equality.Semantic.DeepDerivative does: only the fields we set count, so the fields the API server
// defaults (dnsPolicy, terminationMessagePath, clusterIP, ...) never look like drift and an
// unchanged object is never rewritten — a blind Update rolled the adaptor on every reconcile
// upstream (OSC PR #1917).
import { isObject } from '../../../apimachinery/json/index.ts';
import { createOrPatch, setControllerReference } from '../../../runtime/index.ts';
import type { HelperClient, KubeObject, OperationResult, ResourceType } from '../../../runtime/index.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** True when every field set in `want` has the same value in `have` (arrays: same length, pairwise). */
export function isDerivative(want: unknown, have: unknown): boolean {
  if (Array.isArray(want)) {
    return Array.isArray(have) && want.length === have.length && want.every((w, i) => isDerivative(w, have[i]));
  }
  if (isObject(want)) {
    if (!isObject(have)) return Object.keys(want).length === 0 && have === undefined;
    return Object.entries(want).every(([k, w]) => w === undefined || isDerivative(w, have[k]));
  }
  return want === have;
}

/** Writes `want`'s fields onto `into`: objects merged, arrays and scalars replaced. */
function assignDeep(into: Record<string, unknown>, want: Record<string, unknown>): void {
  for (const [k, w] of Object.entries(want)) {
    if (w === undefined) continue;
    const cur = into[k];
    if (isObject(w) && isObject(cur)) assignDeep(cur, w);
    else into[k] = structuredClone(w as Json);
  }
}

export interface EnsureOptions {
  /** Controller owner reference (namespaced owners only; cluster-scoped objects use labels instead). */
  owner?: KubeObject;
  signal?: AbortSignal;
}

/** Creates `desired` or patches the live object where it differs from `desired`'s fields. */
export async function ensure<T extends KubeObject>(
  client: HelperClient,
  type: ResourceType,
  desired: T,
  opts: EnsureOptions = {},
): Promise<{ result: OperationResult; object: T }> {
  const { metadata, ...body } = desired;
  return createOrPatch<T>(
    client,
    type,
    { apiVersion: desired.apiVersion, kind: desired.kind, metadata: { ...metadata } } as T,
    (draft) => {
      const d = draft as Record<string, unknown>;
      if (!isDerivative(body, d)) assignDeep(d, body);
      for (const field of ['labels', 'annotations'] as const) {
        const want = metadata[field];
        if (want && !isDerivative(want, draft.metadata[field])) {
          draft.metadata[field] = { ...draft.metadata[field], ...want };
        }
      }
      // setControllerReference is idempotent; it throws when another controller owns the object.
      if (opts.owner) setControllerReference(opts.owner, draft);
    },
    opts.signal ? { signal: opts.signal } : {},
  );
}
