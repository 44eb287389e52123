// The checks kube-apiserver makes on a list, watch or deletecollection's ListOptions before
// serving it (apimachinery/pkg/apis/meta/internalversion/validation ValidateListOptions, with the
// WatchList feature on as it is by default): a 422 Invalid ListOptions.meta.k8s.io whose causes
// name the offending parameter.
import { invalid } from '../../apimachinery/errors/index.ts';
import { fieldForbidden, fieldNotSupported, toCauses, type FieldError } from '../../apimachinery/validation/index.ts';

export interface ListOptionsParams {
  watch: boolean;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  continueToken?: string;
  sendInitialEvents?: boolean;
}

export function validateListOptions(o: ListOptionsParams): void {
  const errors = o.watch ? watchOptionErrors(o) : listOptionErrors(o);
  if (errors.length > 0) throw invalid('meta.k8s.io', 'ListOptions', '', toCauses(errors));
}

function listOptionErrors(o: ListOptionsParams): FieldError[] {
  const errors: FieldError[] = [];
  const match = o.resourceVersionMatch ?? '';
  if (match !== '') {
    if (!o.resourceVersion) {
      errors.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
      );
    }
    if (o.continueToken) {
      errors.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errors.push(fieldNotSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && o.resourceVersion === '0') {
      errors.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
      );
    }
  }
  if (o.sendInitialEvents !== undefined) {
    errors.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  return errors;
}

function watchOptionErrors(o: ListOptionsParams): FieldError[] {
  const errors: FieldError[] = [];
  const match = o.resourceVersionMatch ?? '';
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errors.push(
      fieldForbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
    );
  }
  if (match !== '') {
    if (o.sendInitialEvents === undefined) {
      errors.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    }
    if (match !== 'NotOlderThan') errors.push(fieldNotSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continueToken) {
      errors.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
    }
  }
  return errors;
}
