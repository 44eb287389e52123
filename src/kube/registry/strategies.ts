// Wires the built-in kinds' defaults, validation and merge keys into their ResourceDefs.
import {
  applyDefaults as builtinDefaults,
  assignClusterIp,
  ClusterIpAllocator,
  prepareForUpdate,
  pruneUnknownFields,
  validate as builtinValidate,
} from '../builtins/index.ts';
import { builtinSchemaInfo } from '../patch/index.ts';
import { validateCrd } from '../crd/index.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { ResourceDef } from './resource.ts';
import { eventsV1View } from './events-view.ts';

/** One ClusterIP pool per control plane; `allocator` is shared by every Service write. */
export function withBuiltinStrategies(
  defs: ResourceDef[],
  allocator = new ClusterIpAllocator('10.96.0.0/12', { reserveKubernetesServiceIp: false }),
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
    const strategy: ResourceDef['strategy'] = {
      prune: (obj: JsonObject) => pruneUnknownFields(group, kind, obj),
      applyDefaults: (obj: JsonObject, op, old?: JsonObject) =>
        builtinDefaults(group, kind, obj, op, old ? { old } : {}),
      prepareForUpdate: (next, old, subresource) =>
        prepareForUpdate(group, kind, next, old, (subresource ?? 'main') as 'main' | 'status' | 'finalize'),
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

function serviceIps(svc: JsonObject): string[] {
  const spec = (svc.spec ?? {}) as { clusterIP?: string; clusterIPs?: string[] };
  const ips = spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []);
  return ips.filter((ip) => ip && ip !== 'None');
}
