// Wires the built-in kinds' defaults, validation and merge keys into their ResourceDefs.
import {
  applyDefaults as builtinDefaults,
  assignClusterIp,
  builtinFieldOrder,
  ClusterIpAllocator,
  decodeErrors,
  generationChanged,
  hpaV1FromV2,
  hpaV2FromV1,
  prepareForUpdate,
  pruneUnknownFields,
  validate as builtinValidate,
} from '../builtins/index.ts';
import { builtinSchemaInfo } from '../patch/index.ts';
import { validateCrd } from '../crd/index.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { DefaultsOptions } from '../builtins/index.ts';
import type { ResourceDef } from './resource.ts';
import { eventsV1View } from './events-view.ts';

/** kube-apiserver flags of the built-in admission plugins that defaulting runs. */
export type AdmissionSettings = Pick<
  DefaultsOptions,
  'defaultNotReadyTolerationSeconds' | 'defaultUnreachableTolerationSeconds'
>;

/** One ClusterIP pool per control plane; `allocator` is shared by every Service write. */
export function withBuiltinStrategies(
  defs: ResourceDef[],
  allocator = new ClusterIpAllocator('10.96.0.0/12', { reserveKubernetesServiceIp: false }),
  admission: AdmissionSettings = {},
): ResourceDef[] {
  return defs.map((def) => {
    if (def.group === 'events.k8s.io') {
      // Stored as core/v1 Events; defaults and validation run on the stored form.
      return {
        ...def,
        storageOf: { group: '', resource: 'events' },
        view: eventsV1View,
        strategy: { schemaInfo: builtinSchemaInfo('', 'Event') },
      };
    }
    const { group, kind } = def;
    if (group === 'autoscaling' && def.version === 'v1') {
      // Stored as autoscaling/v2; the v2 strategy runs on the converted object.
      const v2 = withBuiltinStrategies([{ ...def, version: 'v2' }], allocator, admission)[0];
      return {
        ...def,
        storageOf: { group, resource: def.resource },
        view: hpaV1View,
        strategy: throughView(hpaV1View, v2.strategy),
      };
    }
    const strategy: ResourceDef['strategy'] = {
      prune: (obj: JsonObject) => pruneUnknownFields(group, kind, obj, def.version),
      decodeErrors: (obj, flavour) => decodeErrors(group, def.version, kind, obj, flavour),
      applyDefaults: (obj: JsonObject, op, old?: JsonObject) =>
        builtinDefaults(group, kind, obj, op, old ? { ...admission, old } : admission),
      prepareForUpdate: (next, old, subresource) =>
        prepareForUpdate(group, kind, next, old, (subresource ?? 'main') as 'main' | 'status' | 'finalize'),
      generationChanged: (next, old, subresource) => generationChanged(group, kind, next, old, subresource),
      validate: (obj: JsonObject, old?: JsonObject) => builtinValidate(group, kind, obj, old),
      schemaInfo: builtinSchemaInfo(group, kind),
    };
    if (group === '' && kind === 'Service') {
      strategy.allocate = (svc) => {
        assignClusterIp(svc, allocator);
      };
      strategy.release = (svc) => {
        for (const ip of serviceIps(svc)) allocator.release(ip);
      };
    }
    if (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition') {
      strategy.validate = (obj, old) => [...builtinValidate(group, kind, obj, old), ...validateCrd(obj, old)];
    }
    return { ...def, strategy };
  });
}

// Both forms in their own Go field order (k8s.io/api/autoscaling/v1 and v2 types.go), as every
// stored and served object is.
const hpaV1Order = builtinFieldOrder('autoscaling', 'v1', 'HorizontalPodAutoscaler');
const hpaV2Order = builtinFieldOrder('autoscaling', 'v2', 'HorizontalPodAutoscaler');
const hpaV1View = {
  toStored: (v1: JsonObject) => hpaV2Order(hpaV2FromV1(v1)),
  fromStored: (v2: JsonObject) => hpaV1Order(hpaV1FromV2(v2)),
};

/** A stored-form strategy applied to a view's objects: convert, run, convert back in place. */
function throughView(view: NonNullable<ResourceDef['view']>, base: ResourceDef['strategy']): ResourceDef['strategy'] {
  const inPlace = (target: JsonObject, stored: JsonObject): void => {
    for (const k of Object.keys(target)) delete target[k];
    Object.assign(target, view.fromStored(stored));
  };
  return {
    applyDefaults: (obj, op, old) => {
      const stored = view.toStored(obj);
      base.applyDefaults?.(stored, op, old && view.toStored(old));
      inPlace(obj, stored);
    },
    prepareForUpdate: (next, old, subresource) => {
      const stored = view.toStored(next);
      base.prepareForUpdate?.(stored, view.toStored(old), subresource);
      inPlace(next, stored);
    },
    generationChanged: (next, old, subresource) =>
      base.generationChanged?.(view.toStored(next), view.toStored(old), subresource),
    validate: (obj, old) => base.validate?.(view.toStored(obj), old && view.toStored(old)) ?? [],
    schemaInfo: base.schemaInfo,
  };
}

function serviceIps(svc: JsonObject): string[] {
  const spec = (svc.spec ?? {}) as { clusterIP?: string; clusterIPs?: string[] };
  const ips = spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []);
  return ips.filter((ip) => ip && ip !== 'None');
}
