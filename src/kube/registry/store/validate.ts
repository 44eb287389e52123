// Object metadata rules, immutability against the stored object, then the kind's own validation.
import { invalid } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { validateObjectMeta } from '../../validation/metadata.ts';
import { objectMetaOptionsFor } from '../../validation/name-rules.ts';
import type { ResourceDef } from '../resource.ts';
import { meta } from './objects.ts';
import { fieldInvalid, toCauses, type FieldError } from '../../../apimachinery/validation/field-errors.ts';

export function validate(def: ResourceDef, obj: JsonObject, old: JsonObject | undefined): void {
  const m = meta(obj);
  const storageRes = def.storageOf ?? def;
  const errors: FieldError[] = validateObjectMeta(
    m,
    objectMetaOptionsFor(storageRes.group, storageRes.resource, def.namespaced, !def.builtin),
  );
  if (old) errors.push(...immutableMetaErrors(m, meta(old)));
  if (errors.length === 0) errors.push(...(def.strategy.validate?.(obj, old) ?? []));
  if (errors.length > 0) throw invalid(def.group, def.kind, String(m.name ?? m.generateName ?? ''), toCauses(errors));
}

function immutableMetaErrors(next: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errors: FieldError[] = [];
  if (next.name !== old.name) {
    errors.push({ field: 'metadata.name', reason: 'FieldValueInvalid', message: 'field is immutable' });
  }
  if (next.uid !== old.uid) errors.push(fieldInvalid('metadata.uid', next.uid ?? '', 'field is immutable'));
  return errors;
}
