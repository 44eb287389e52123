// What handlers return, and adapters for the two common shapes: a mutator that edits the object
// (we compute the JSON patch from the edit) and a validator that throws or returns warnings.
import jsonpatch from 'fast-json-patch';
// Named, not `jsonpatch.Operation`: the emitted .d.ts must compile for a consumer (test/package).
import type { Operation } from 'fast-json-patch';
import type { KubeObject } from '../client/types.ts';
import { cloneJson } from '../../apimachinery/json/index.ts';
import type { AdmissionRequest, AdmissionResponse, AdmissionStatus } from './types.ts';

/** A handler's verdict; the server fills in `uid`. */
export type AdmissionResult = Omit<AdmissionResponse, 'uid'>;

export type AdmissionHandler<T extends KubeObject = KubeObject> = (
  req: AdmissionRequest<T>,
  ctx: { signal: AbortSignal },
) => AdmissionResult | Promise<AdmissionResult>;

export function allowed(message?: string, warnings?: string[]): AdmissionResult {
  return {
    allowed: true,
    ...(message ? { status: { code: 200, message } } : {}),
    ...(warnings?.length ? { warnings } : {}),
  };
}

/** Refuses the request; `code` defaults to 403 (Forbidden), as controller-runtime's Denied. */
export function denied(message: string, code = 403, reason?: string): AdmissionResult {
  const status: AdmissionStatus = { code, message, ...(reason ? { reason } : {}) };
  return { allowed: false, status };
}

/** Refuses the request because the webhook failed (not because of the object). */
export function errored(code: number, err: unknown): AdmissionResult {
  return { allowed: false, status: { code, message: err instanceof Error ? err.message : String(err) } };
}

/** The JSON Patch operations turning `original` into `mutated`. */
export function jsonPatchOps(original: unknown, mutated: unknown): Operation[] {
  // JSON round-trip: undefined-valued fields are absent on the wire and must not become operations.
  return jsonpatch.compare(cloneJson(original) as object, cloneJson(mutated) as object);
}

/** Allows the request with the JSON patch from `original` to `mutated` (none when they are equal). */
export function patched(original: unknown, mutated: unknown, warnings?: string[]): AdmissionResult {
  const ops = jsonPatchOps(original, mutated);
  if (ops.length === 0) return allowed(undefined, warnings);
  return {
    allowed: true,
    patchType: 'JSONPatch',
    patch: Buffer.from(JSON.stringify(ops)).toString('base64'),
    ...(warnings?.length ? { warnings } : {}),
  };
}

/** Thrown by a validator or mutator to deny with a message (and optional code). */
export class AdmissionDenied extends Error {
  constructor(
    message: string,
    readonly code = 403,
  ) {
    super(message);
    this.name = 'AdmissionDenied';
  }
}

/**
 * A mutating handler from a function that edits a copy of the object in place (or returns a new
 * one). Throw {@link AdmissionDenied} to refuse. Requests without an object (DELETE) are allowed.
 */
export function mutatingHandler<T extends KubeObject = KubeObject>(
  mutate: (obj: T, req: AdmissionRequest<T>) => T | void | Promise<T | void>,
): AdmissionHandler<T> {
  return async (req) => {
    if (!req.object) return allowed();
    const draft = cloneJson(req.object);
    try {
      const out = (await mutate(draft, req)) ?? draft;
      return patched(req.object, out);
    } catch (err) {
      if (err instanceof AdmissionDenied) return denied(err.message, err.code);
      throw err;
    }
  };
}

/**
 * A validating handler: throw {@link AdmissionDenied} (or return `{ denied }`) to refuse, return
 * warnings (strings) to allow with warnings.
 */
export function validatingHandler<T extends KubeObject = KubeObject>(
  validate: (
    req: AdmissionRequest<T>,
  ) => void | string[] | { denied: string } | Promise<void | string[] | { denied: string }>,
): AdmissionHandler<T> {
  return async (req) => {
    try {
      const out = await validate(req);
      if (out && !Array.isArray(out)) return denied(out.denied);
      return allowed(undefined, out ?? undefined);
    } catch (err) {
      if (err instanceof AdmissionDenied) return denied(err.message, err.code);
      throw err;
    }
  };
}
