// metadata.ownerReferences validation (ValidateOwnerReferences). The bad values in these
// messages are Go structs printed with %#v, pointers included; we print the same shape with
// stand-in addresses, since no client parses them but people compare them with real clusters.

import type { OwnerReference } from '../../apimachinery/meta/index.ts';
import { goQuote } from '../../apimachinery/strings/goquote.ts';
import { fieldInvalid, GoValue, type FieldError } from '../../apimachinery/validation/field-errors.ts';
import { child } from '../../apimachinery/validation/field-path.ts';

let fakeAddress = 0xc000010000;

function boolPointer(value: boolean | undefined | null): string {
  if (value === undefined || value === null) return '(*bool)(nil)';
  fakeAddress += 8;
  return `(*bool)(0x${fakeAddress.toString(16)})`;
}

function ownerReferenceGo(ref: OwnerReference): string {
  return (
    `v1.OwnerReference{APIVersion:${goQuote(ref.apiVersion ?? '')}, Kind:${goQuote(ref.kind ?? '')}, ` +
    `Name:${goQuote(ref.name ?? '')}, UID:${goQuote(ref.uid ?? '')}, Controller:${boolPointer(ref.controller)}, ` +
    `BlockOwnerDeletion:${boolPointer(ref.blockOwnerDeletion)}}`
  );
}

/** schema.ParseGroupVersion + FromAPIVersionAndKind: a malformed apiVersion leaves the version empty. */
function groupVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

function validateOwnerReference(ref: OwnerReference, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const { group, version } = groupVersion(ref.apiVersion ?? '');
  const kind = ref.kind ?? '';
  if (!version) errs.push(fieldInvalid(child(path, 'apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
  if (!kind) errs.push(fieldInvalid(child(path, 'kind'), kind, 'kind must not be empty'));
  if (!ref.name) errs.push(fieldInvalid(child(path, 'name'), ref.name ?? '', 'name must not be empty'));
  if (!ref.uid) errs.push(fieldInvalid(child(path, 'uid'), ref.uid ?? '', 'uid must not be empty'));
  // Core Events may not own anything (BannedOwners).
  if (group === '' && version === 'v1' && kind === 'Event') {
    errs.push(
      fieldInvalid(path, new GoValue(ownerReferenceGo(ref)), '/v1, Kind=Event is disallowed from being an owner'),
    );
  }
  return errs;
}

export function validateOwnerReferences(refs: readonly OwnerReference[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  let firstController = '';
  for (const ref of refs) {
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        const all = new GoValue(`[]v1.OwnerReference{${refs.map(ownerReferenceGo).join(', ')}}`);
        errs.push(
          fieldInvalid(
            path,
            all,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}
