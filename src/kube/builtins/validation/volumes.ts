// Pod volume validation (ValidateVolumes): names, exactly one source, and the required fields
// of the common sources. Returns the names of the volumes that validated, which is what volume
// mounts are checked against, as upstream.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { VOLUME_SOURCES } from '../defaults/pod.ts';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { isEmptyString, isNil, obj, objects, str } from '../json.ts';
import { validateDNS1123Label } from '../../../apimachinery/validation/names.ts';
import { tryQuantityFromJSON } from '../../../apimachinery/quantity/quantity.ts';

const FILE_MODE_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];

function validateMode(path: string, mode: unknown): FieldError[] {
  if (typeof mode !== 'number') return [];
  return mode < 0 || mode > 0o777 ? [fieldInvalid(path, mode, FILE_MODE_MSG)] : [];
}

function validateVolumeSource(v: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const key of VOLUME_SOURCES) {
    if (isNil(v, key)) continue;
    if (count > 0) {
      errs.push(fieldForbidden(`${path}.${key}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const src = obj(v, key) ?? {};
    const p = `${path}.${key}`;
    switch (key) {
      case 'hostPath': {
        if (isEmptyString(src, 'path')) errs.push(fieldRequired(`${p}.path`));
        const t = src.type;
        if (typeof t === 'string' && !HOST_PATH_TYPES.includes(t))
          errs.push(fieldNotSupported(`${p}.type`, t, HOST_PATH_TYPES));
        break;
      }
      case 'secret':
        if (isEmptyString(src, 'secretName')) errs.push(fieldRequired(`${p}.secretName`));
        errs.push(...validateMode(`${p}.defaultMode`, src.defaultMode));
        break;
      case 'configMap':
        if (isEmptyString(src, 'name')) errs.push(fieldRequired(`${p}.name`));
        errs.push(...validateMode(`${p}.defaultMode`, src.defaultMode));
        break;
      case 'persistentVolumeClaim':
        if (isEmptyString(src, 'claimName')) errs.push(fieldRequired(`${p}.claimName`));
        break;
      case 'emptyDir': {
        const limit = tryQuantityFromJSON(src.sizeLimit);
        if (limit && limit.sign() < 0)
          errs.push(fieldForbidden(`${p}.sizeLimit`, 'SizeLimit field must be a valid resource quantity'));
        break;
      }
      case 'downwardAPI':
      case 'projected':
        errs.push(...validateMode(`${p}.defaultMode`, src.defaultMode));
        break;
    }
  }
  if (count === 0) errs.push(fieldRequired(path, 'must specify a volume type'));
  return errs;
}

export function validateVolumes(spec: JsonObject, path: string): { names: Set<string>; errs: FieldError[] } {
  const names = new Set<string>();
  const errs: FieldError[] = [];
  objects(spec, 'volumes').forEach((v, i) => {
    const p = `${path}[${i}]`;
    const el = validateVolumeSource(v, p);
    const name = str(v, 'name') ?? '';
    if (name === '') el.push(fieldRequired(`${p}.name`));
    else el.push(...validateDNS1123Label(name, `${p}.name`));
    if (names.has(name)) el.push(fieldDuplicate(`${p}.name`, name));
    if (el.length === 0) names.add(name);
    else errs.push(...el);
  });
  return { names, errs };
}
