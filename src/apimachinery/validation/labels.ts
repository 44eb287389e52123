// Label and annotation maps as metav1 validation checks them (ValidateLabels,
// ValidateAnnotations). Errors point at the map itself (`metadata.labels`), not at the key,
// because that is where kube puts them.

import { fieldInvalid, fieldTooLong, type FieldError } from './field-errors.ts';
import { byteLength, isQualifiedName, isValidLabelValue, validateQualifiedName } from './names.ts';

export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** metav1validation.ValidateLabels; an absent map is valid. */
export function validateLabels(labels: Readonly<Record<string, string>> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    errs.push(...validateQualifiedName(key, path));
    const text = String(value);
    for (const msg of isValidLabelValue(text)) errs.push(fieldInvalid(path, text, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: Readonly<Record<string, string>>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    // Annotation keys are case-insensitive in the check but reported as written.
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(fieldInvalid(path, key, msg));
    total += byteLength(key) + byteLength(String(value));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(fieldTooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}
