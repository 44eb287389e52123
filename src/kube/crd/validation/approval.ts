// API approval for CRDs in the protected *.k8s.io and *.kubernetes.io groups (kube's
// validateAPIApproval): they need an api-approved.kubernetes.io annotation.
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asObject, asString } from '../json.ts';
import { key } from '../../../apimachinery/validation/field-path.ts';
import { fieldInvalid, fieldRequired } from '../../../apimachinery/validation/field-errors.ts';

const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

type Approval = 'invalid' | 'approved' | 'bypassed' | 'missing';

function approvalState(crd: JsonObject): { state: Approval; reason: string } {
  const annotations = asObject(asObject(crd.metadata)?.annotations) ?? {};
  const value = asString(annotations[APPROVAL_ANNOTATION]) ?? '';
  const link = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (!value)
    return {
      state: 'missing',
      reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", ${link}`,
    };
  if (value.startsWith('unapproved')) return { state: 'bypassed', reason: '' };
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/\s]+/.test(value)) return { state: 'approved', reason: '' };
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${link}`,
  };
}

export function validateApproval(crd: JsonObject, old: JsonObject | undefined, group: string): FieldError[] {
  const isProtected = ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));
  if (!isProtected) return [];
  const now = approvalState(crd);
  if (old && approvalState(old).state === now.state) return [];
  const p = key('metadata.annotations', APPROVAL_ANNOTATION);
  const value = asString(asObject(asObject(crd.metadata)?.annotations)?.[APPROVAL_ANNOTATION]) ?? '';
  if (now.state === 'missing') return [fieldRequired(p, now.reason)];
  if (now.state === 'invalid') return [fieldInvalid(p, value, now.reason)];
  return [];
}
