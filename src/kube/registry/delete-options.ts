// metav1.DeleteOptions as a request carries them (a DELETE body, an Eviction's deleteOptions, or
// the query), checked as kube-apiserver checks them (apis/meta/v1/validation ValidateDeleteOptions:
// a 422 Invalid DeleteOptions.meta.k8s.io), and split into what the store takes and the dry-run
// flag the request context carries.
import { badRequest, invalid } from '../../apimachinery/errors/index.ts';
import { isObject } from '../../apimachinery/json/index.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { goStringSlice } from '../../apimachinery/strings/index.ts';
import {
  fieldInvalid,
  fieldNotSupported,
  GoValue,
  toCauses,
  type FieldError,
} from '../../apimachinery/validation/index.ts';
import type { DeleteOptions, PropagationPolicy } from './store/index.ts';

const PROPAGATION_POLICIES: readonly string[] = ['Foreground', 'Background', 'Orphan'];

/** The DeleteOptions fields as decoded, before validation. */
export interface RawDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: string[];
}

export interface RequestDeleteOptions {
  options: DeleteOptions;
  dryRun: boolean;
}

/** encoding/json's type error for a field of the wrong JSON type. */
function typeError(field: string, value: unknown, goType: string): never {
  const got = Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : typeof value === 'object'
        ? 'object'
        : typeof value;
  throw badRequest(`json: cannot unmarshal ${got} into Go struct field DeleteOptions.${field} of type ${goType}`);
}

function optionalString(obj: JsonObject, field: string, path = field): string | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') typeError(path, v, 'string');
  return v;
}

/** The fields of a decoded DeleteOptions object; JSON null reads as absent, as in Go. */
export function rawDeleteOptions(obj: JsonObject): RawDeleteOptions {
  const raw: RawDeleteOptions = {};
  const grace = obj.gracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) typeError('gracePeriodSeconds', grace, 'int64');
    raw.gracePeriodSeconds = grace;
  }
  const pre = obj.preconditions;
  if (pre !== undefined && pre !== null) {
    if (!isObject(pre)) typeError('preconditions', pre, 'v1.Preconditions');
    raw.preconditions = {};
    const uid = optionalString(pre, 'uid', 'preconditions.uid');
    const rv = optionalString(pre, 'resourceVersion', 'preconditions.resourceVersion');
    if (uid !== undefined) raw.preconditions.uid = uid;
    if (rv !== undefined) raw.preconditions.resourceVersion = rv;
  }
  const orphan = obj.orphanDependents;
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== 'boolean') typeError('orphanDependents', orphan, 'bool');
    raw.orphanDependents = orphan;
  }
  const policy = optionalString(obj, 'propagationPolicy');
  if (policy !== undefined) raw.propagationPolicy = policy;
  const dryRun = obj.dryRun;
  if (dryRun !== undefined && dryRun !== null) {
    if (!Array.isArray(dryRun) || dryRun.some((d) => typeof d !== 'string')) typeError('dryRun', dryRun, '[]string');
    raw.dryRun = dryRun as string[];
  }
  return raw;
}

/** ValidateDeleteOptions, then the store's view: orphanDependents=true is the Orphan policy. */
export function checkDeleteOptions(raw: RawDeleteOptions): RequestDeleteOptions {
  const errors: FieldError[] = [];
  const policy = raw.propagationPolicy;
  if (raw.orphanDependents !== undefined && policy !== undefined) {
    errors.push(
      fieldInvalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'),
    );
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    errors.push(fieldNotSupported('propagationPolicy', policy, [...PROPAGATION_POLICIES, 'nil']));
  }
  const dryRun = raw.dryRun ?? [];
  if (dryRun.some((d) => d !== 'All')) {
    errors.push(fieldNotSupported('dryRun', new GoValue(goStringSlice(dryRun)), ['All']));
  }
  if (errors.length > 0) throw invalid('meta.k8s.io', 'DeleteOptions', '', toCauses(errors));

  const options: DeleteOptions = {};
  if (policy !== undefined) options.propagationPolicy = policy as PropagationPolicy;
  else if (raw.orphanDependents === true) options.propagationPolicy = 'Orphan';
  if (raw.gracePeriodSeconds !== undefined) options.gracePeriodSeconds = raw.gracePeriodSeconds;
  if (raw.preconditions !== undefined) options.preconditions = raw.preconditions;
  return { options, dryRun: dryRun.length > 0 };
}
