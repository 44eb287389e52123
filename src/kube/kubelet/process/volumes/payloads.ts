// The files of the API-backed volumes, as the kubelet's volume plugins compute them:
// configMap/secret MakePayload (pkg/volume/configmap, pkg/volume/secret), downwardAPI
// CollectData (pkg/volume/downwardapi) and projected collectData (pkg/volume/projected). Each
// also names the storage keys its content comes from, so the refresher knows when to rewrite it.
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { ContainerConfigError } from '../container-config.ts';
import { containerResourceValue, metadataFieldValue, type ResourceFieldSelector } from '../downward.ts';
import { requireObject, type ObjectReader } from '../objects.ts';
import type { FileProjection, Payload } from './atomic-writer.ts';
import type { PodTokens } from './service-account-tokens.ts';

/** What the payloads of one pod read. */
export interface PayloadContext {
  reader: ObjectReader;
  /** The pod as last seen (downwardAPI files follow its labels and annotations). */
  pod: JsonObject;
  allocatable: Record<string, unknown>;
  /** The pod's service-account tokens: one per serviceAccountToken projection (audience, lifetime). */
  tokens: PodTokens;
}

export interface Computed {
  payload: Payload;
  /** Storage keys whose change may change the payload. */
  deps: string[];
}

/** Kube's default for defaultMode (0644). */
export const DEFAULT_MODE = 0o644;

function modeOf(v: unknown, fallback: number): number {
  return typeof v === 'number' ? v : fallback;
}

function stringMap(v: unknown): Record<string, string> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
}

function namespaceOf(pod: JsonObject): string {
  return String((pod.metadata as JsonObject | undefined)?.namespace ?? '');
}

function keyedPayload(
  kind: 'configmaps' | 'secrets',
  source: JsonObject,
  defaultMode: number,
  ctx: PayloadContext,
): Computed {
  const namespace = namespaceOf(ctx.pod);
  const name = String(source.name ?? source.secretName ?? '');
  const optional = source.optional === true;
  const deps = [ctx.reader.key(kind, namespace, name)];
  const payload: Payload = new Map();
  const obj = requireObject(ctx.reader, kind, namespace, name, optional);
  const values = new Map<string, Buffer>();
  if (obj && kind === 'configmaps') {
    for (const [k, v] of Object.entries(stringMap(obj.data))) values.set(k, Buffer.from(v, 'utf8'));
    for (const [k, v] of Object.entries(stringMap(obj.binaryData))) values.set(k, Buffer.from(v, 'base64'));
  } else if (obj) for (const [k, v] of Object.entries(stringMap(obj.data))) values.set(k, Buffer.from(v, 'base64'));
  const items = (source.items ?? []) as JsonObject[];
  if (items.length === 0) {
    for (const [k, data] of values) payload.set(k, { data, mode: defaultMode });
    return { payload, deps };
  }
  for (const item of items) {
    const key = String(item.key ?? '');
    const data = values.get(key);
    if (!data) {
      if (optional) continue;
      throw new ContainerConfigError(
        kind === 'configmaps'
          ? `configmap references non-existent config key: ${key}`
          : `references non-existent secret key: ${key}`,
      );
    }
    payload.set(String(item.path ?? key), { data, mode: modeOf(item.mode, defaultMode) });
  }
  return { payload, deps };
}

export function configMapPayload(source: JsonObject, defaultMode: number, ctx: PayloadContext): Computed {
  return keyedPayload('configmaps', source, defaultMode, ctx);
}

export function secretPayload(source: JsonObject, defaultMode: number, ctx: PayloadContext): Computed {
  return keyedPayload('secrets', source, defaultMode, ctx);
}

export function downwardAPIPayload(items: JsonObject[], defaultMode: number, ctx: PayloadContext): Computed {
  const meta = (ctx.pod.metadata ?? {}) as JsonObject;
  const payload: Payload = new Map();
  const errors: string[] = [];
  for (const item of items) {
    let value: string;
    try {
      if (item.fieldRef) value = metadataFieldValue(String((item.fieldRef as JsonObject).fieldPath ?? ''), ctx.pod);
      else if (item.resourceFieldRef)
        value = containerResourceValue(
          item.resourceFieldRef as unknown as ResourceFieldSelector,
          ctx.pod,
          {},
          ctx.allocatable,
        );
      else continue;
    } catch (e) {
      errors.push((e as Error).message);
      continue;
    }
    const file: FileProjection = { data: Buffer.from(value, 'utf8'), mode: modeOf(item.mode, defaultMode) };
    payload.set(String(item.path ?? ''), file);
  }
  if (errors.length > 0) throw new ContainerConfigError(errors.join(', '));
  return { payload, deps: [ctx.reader.key('pods', namespaceOf(ctx.pod), String(meta.name ?? ''))] };
}

/** A projected volume: its sources merged into one directory, later sources winning. */
export function projectedPayload(source: JsonObject, ctx: PayloadContext): Computed {
  const defaultMode = modeOf(source.defaultMode, DEFAULT_MODE);
  const payload: Payload = new Map();
  const deps: string[] = [];
  const merge = (c: Computed): void => {
    for (const [k, v] of c.payload) payload.set(k, v);
    deps.push(...c.deps);
  };
  for (const s of (source.sources ?? []) as JsonObject[]) {
    if (s.configMap) merge(configMapPayload(s.configMap as JsonObject, defaultMode, ctx));
    else if (s.secret) merge(secretPayload(s.secret as JsonObject, defaultMode, ctx));
    else if (s.downwardAPI)
      merge(downwardAPIPayload(((s.downwardAPI as JsonObject).items ?? []) as JsonObject[], defaultMode, ctx));
    else if (s.serviceAccountToken) {
      const projection = s.serviceAccountToken as JsonObject;
      const token = ctx.tokens.token(projection);
      payload.set(String(projection.path ?? ''), { data: Buffer.from(token, 'utf8'), mode: defaultMode });
    } else
      throw new ContainerConfigError(
        `projected source ${Object.keys(s).join(', ')} is not supported by the process runtime`,
      );
  }
  return { payload, deps };
}
