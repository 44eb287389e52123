// Validation of metav1.LabelSelector objects inside specs (Deployment `spec.selector`, webhook
// `namespaceSelector`, ...), producing the 422 causes ValidateLabelSelector produces.

import type { LabelSelector } from '../selectors/label.ts';
import { fieldForbidden, fieldInvalid, fieldRequired, type FieldError } from './field-errors.ts';
import { validateLabels } from './labels.ts';
import { isValidLabelValue, validateQualifiedName } from './names.ts';
import { child, index } from './field-path.ts';

export interface LabelSelectorValidationOptions {
  /** Some fields tolerate bad values for backward compatibility (LabelSelectorValidationOptions). */
  allowInvalidLabelValueInSelector?: boolean;
  allowUnknownOperatorInRequirement?: boolean;
}

export function validateLabelSelector(
  selector: LabelSelector | null | undefined,
  path: string,
  opts: LabelSelectorValidationOptions = {},
): FieldError[] {
  if (!selector) return [];
  const errs = validateLabels(selector.matchLabels ?? {}, child(path, 'matchLabels'));
  (selector.matchExpressions ?? []).forEach((expr, i) => {
    const at = index(child(path, 'matchExpressions'), i);
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          errs.push(fieldRequired(child(at, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          errs.push(
            fieldForbidden(child(at, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        }
        break;
      default:
        if (!opts.allowUnknownOperatorInRequirement) {
          errs.push(fieldInvalid(child(at, 'operator'), expr.operator, 'not a valid selector operator'));
        }
    }
    errs.push(...validateQualifiedName(expr.key, child(at, 'key')));
    if (!opts.allowInvalidLabelValueInSelector) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(index(child(at, 'values'), j), v, msg));
      });
    }
  });
  return errs;
}
