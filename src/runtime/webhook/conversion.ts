// Conversion between the versions of a custom resource, in controller-runtime's hub-and-spoke shape:
// one version of a kind is the hub (usually the storage version) and every other version, a spoke,
// converts to and from it. Any version reaches any other through the hub, so n versions need n - 1
// pairs of functions, not n². `conversionWebhook(scheme)` answers the API server's ConversionReviews
// with them; register it on the WebhookServer at "/convert", as admission handlers are registered.
import { cloneJson } from '../../apimachinery/json/index.ts';
import type { KubeObject } from '../client/types.ts';
import type { ConversionRequest, ConversionResponse } from './types.ts';

/** A version of a kind: a ResourceType such as `customResource(...)` will do. */
export interface VersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * What a spoke version implements (controller-runtime's conversion.Convertible): `convertTo` makes
 * the hub object from this version's, `convertFrom` makes this version's from the hub's. Each gets
 * its own copy of the object and may return it edited. The metadata is carried over when the result
 * has none; apiVersion and kind are set by the scheme.
 */
export interface Convertible<Spoke extends KubeObject = KubeObject, Hub extends KubeObject = KubeObject> {
  convertTo(spoke: Spoke): Hub | Promise<Hub>;
  convertFrom(hub: Hub): Spoke | Promise<Spoke>;
}

/** Thrown (and reported as a Failure) when an object cannot be converted. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

interface KindConversions {
  hub?: string;
  spokes: Map<string, Convertible>;
}

const groupKind = (group: string, kind: string): string => `${kind}.${group}`;

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** The hub and spokes of each kind (controller-runtime reads them from its runtime.Scheme). */
export class ConversionScheme {
  private readonly kinds = new Map<string, KindConversions>();

  /** Declares `type`'s version the hub of its kind. */
  hub(type: VersionKind): this {
    const k = this.kind(type);
    if (k.hub !== undefined && k.hub !== type.version) {
      throw new Error(`${groupKind(type.group, type.kind)} already has hub version ${k.hub}`);
    }
    if (k.spokes.has(type.version)) throw new Error(`${type.version} of ${type.kind} is already a spoke`);
    k.hub = type.version;
    return this;
  }

  /** Declares `type`'s version a spoke of its kind, converting through the hub with `convertible`. */
  spoke<Spoke extends KubeObject, Hub extends KubeObject>(
    type: VersionKind,
    convertible: Convertible<Spoke, Hub>,
  ): this {
    const k = this.kind(type);
    if (k.hub === type.version) throw new Error(`${type.version} of ${type.kind} is the hub, not a spoke`);
    if (k.spokes.has(type.version)) throw new Error(`${type.version} of ${type.kind} is already a spoke`);
    k.spokes.set(type.version, convertible as unknown as Convertible);
    return this;
  }

  /** Whether the scheme knows `group`'s `kind` in `version` (as hub or spoke). */
  knows(group: string, version: string, kind: string): boolean {
    const k = this.kinds.get(groupKind(group, kind));
    return k !== undefined && (k.hub === version || k.spokes.has(version));
  }

  /** `obj` in `apiVersion`; throws ConversionError when a version or the kind is not known. */
  async convert(obj: KubeObject, apiVersion: string): Promise<KubeObject> {
    const kind = obj.kind;
    if (typeof obj.apiVersion !== 'string' || typeof kind !== 'string' || !kind) {
      throw new ConversionError('object has no apiVersion or kind');
    }
    const from = splitApiVersion(obj.apiVersion);
    const to = splitApiVersion(apiVersion);
    if (from.group !== to.group) {
      throw new ConversionError(`cannot convert ${kind} from group "${from.group}" to group "${to.group}"`);
    }
    if (from.version === to.version) return cloneJson(obj);
    const k = this.kinds.get(groupKind(from.group, kind));
    if (!k?.hub) throw new ConversionError(`no conversion registered for ${groupKind(from.group, kind)}`);
    for (const v of [from.version, to.version]) {
      if (v !== k.hub && !k.spokes.has(v)) {
        throw new ConversionError(`${groupKind(from.group, kind)} has no version ${v} (known: ${this.versionsOf(k)})`);
      }
    }
    const hubVersion = `${from.group ? `${from.group}/` : ''}${k.hub}`;
    let hub = cloneJson(obj);
    if (from.version !== k.hub) {
      hub = stamp(await (k.spokes.get(from.version) as Convertible).convertTo(hub), obj, hubVersion, kind);
    }
    if (to.version === k.hub) return hub;
    return stamp(await (k.spokes.get(to.version) as Convertible).convertFrom(cloneJson(hub)), obj, apiVersion, kind);
  }

  /** The answer to one ConversionReview request: every object converted, or a Failure naming why. */
  async review(req: ConversionRequest): Promise<ConversionResponse> {
    const convertedObjects: KubeObject[] = [];
    for (const obj of req.objects) {
      try {
        convertedObjects.push(await this.convert(obj, req.desiredAPIVersion));
      } catch (err) {
        // One object that cannot be converted fails the whole review, as in controller-runtime.
        const what = `${obj?.kind ?? 'object'} ${obj?.metadata?.name ?? ''}`.trim();
        const message = `converting ${what} to ${req.desiredAPIVersion}: ${err instanceof Error ? err.message : String(err)}`;
        return { uid: req.uid, convertedObjects: [], result: { status: 'Failure', message } };
      }
    }
    return { uid: req.uid, convertedObjects, result: { status: 'Success' } };
  }

  private kind(type: VersionKind): KindConversions {
    if (!type.version || !type.kind) throw new Error('a conversion needs a version and a kind');
    const key = groupKind(type.group, type.kind);
    let k = this.kinds.get(key);
    if (!k) this.kinds.set(key, (k = { spokes: new Map() }));
    return k;
  }

  private versionsOf(k: KindConversions): string {
    return [k.hub, ...k.spokes.keys()].filter(Boolean).join(', ');
  }
}

/** A converter's result with the target apiVersion and kind, and the source's metadata if it dropped it. */
function stamp(out: KubeObject, source: KubeObject, apiVersion: string, kind: string): KubeObject {
  if (out === null || typeof out !== 'object' || Array.isArray(out)) {
    throw new ConversionError(`converting ${kind} to ${apiVersion} gave no object`);
  }
  return { ...out, apiVersion, kind, metadata: out.metadata ?? cloneJson(source.metadata) };
}

/** What the WebhookServer serves at a conversion path. */
export class ConversionWebhook {
  constructor(readonly scheme: ConversionScheme) {}
}

/** The conversion webhook of `scheme`: `server.register('/convert', conversionWebhook(scheme))`. */
export function conversionWebhook(scheme: ConversionScheme): ConversionWebhook {
  return new ConversionWebhook(scheme);
}
