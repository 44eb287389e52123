// Wires the built-in kinds' defaults, validation and merge keys into their ResourceDefs.
import { applyDefaults as builtinDefaults, validate as builtinValidate } from '../builtins/index.ts';
import { builtinSchemaInfo } from '../patch/index.ts';
import { validateCrd } from '../crd/index.ts';
import type { JsonObject } from '../types.ts';
import type { ResourceDef } from './resource.ts';
import { eventsV1View } from './events-view.ts';
import { pruneUnknownFields } from '../server/openapi/unknown-fields.ts';

export function withBuiltinStrategies(defs: ResourceDef[]): ResourceDef[] {
  return defs.map((def) => {
    if (def.group === 'events.k8s.io') {
      // Stored as core/v1 Events; defaults and validation run on the stored form.
      return { ...def, storageOf: { group: '', resource: 'events' }, view: eventsV1View, strategy: { schemaInfo: builtinSchemaInfo('', 'Event') } };
    }
    const { group, kind } = def;
    const strategy: ResourceDef['strategy'] = {
      prune: (obj: JsonObject) => pruneUnknownFields(group, kind, obj),
      applyDefaults: (obj: JsonObject, op) => builtinDefaults(group, kind, obj, op),
      validate: (obj: JsonObject, old?: JsonObject) => builtinValidate(group, kind, obj, old),
      schemaInfo: builtinSchemaInfo(group, kind),
    };
    if (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition') {
      strategy.validate = (obj, old) => [...builtinValidate(group, kind, obj, old), ...validateCrd(obj, old)];
    }
    return { ...def, strategy };
  });
}
