// The sizes a peer-pod VM may have. The webhook strips cpu and memory from the containers, so the
// API server's own checks never see them: a negative quantity would become a negative VM size, and
// a pod asking for more than any VM can be would wait Pending forever, holding one of the node's
// `kata.peerpods.io/vm` slots. Both are refused here, at admission, naming the field.
import { fieldInvalid } from '../../apimachinery/validation/field-errors.ts';
import { AdmissionDenied } from '../../runtime/index.ts';

export { DEFAULT_MAX_MEMORY_MIB, DEFAULT_MAX_VCPUS } from './defaults.ts';

/** One container field that went into a VM size. */
export interface SizeField {
  path: string;
  value: string | number;
}

/** As the API server's ValidateNonnegativeQuantity words it (422 Invalid without the webhook). */
export function negativeQuantity(field: SizeField): AdmissionDenied {
  const e = fieldInvalid(field.path, String(field.value), 'must be greater than or equal to 0');
  return new AdmissionDenied(`${e.field}: ${e.message}`, 422);
}

export interface SizeLimit {
  /** "vCPUs" or "MiB of memory". */
  unit: string;
  max: number;
  /** The webhook flag that sets `max`. */
  flag: string;
}

/**
 * A computed size (whole vCPUs or MiB) must be at least 1 and at most the limit; the denial names
 * the fields it was summed from. 403, as the LimitRanger's "maximum … usage" denials.
 */
export function checkSize(size: bigint, fields: SizeField[], limit: SizeLimit): void {
  const from = fields.map((f) => f.path).join(' + ') || 'the pod';
  const values = fields.map((f) => JSON.stringify(String(f.value))).join(' + ');
  if (size <= 0n) {
    throw new AdmissionDenied(
      `${from}: Invalid value: ${values}: the peer-pod VM would have ${size} ${limit.unit}`,
      422,
    );
  }
  if (size > BigInt(limit.max)) {
    throw new AdmissionDenied(
      `${from}: ${values}${fields.length > 1 ? ' (summed over the containers)' : ''} would make a peer-pod VM of ` +
        `${size} ${limit.unit}, more than the maximum of ${limit.max} (peer-pods webhook ${limit.flag})`,
      403,
    );
  }
}

/**
 * A size annotation the user wrote (the webhook did not compute it): the adaptor reads it as a whole
 * number, 0 meaning the provider's default.
 */
export function checkSizeAnnotation(key: string, value: string, limit: SizeLimit): void {
  const path = `metadata.annotations[${key}]`;
  if (!/^\d+$/.test(value.trim())) {
    const e = fieldInvalid(path, value, `must be a whole number of ${limit.unit} (0: the provider's default)`);
    throw new AdmissionDenied(`${e.field}: ${e.message}`, 422);
  }
  if (Number(value.trim()) > limit.max) {
    throw new AdmissionDenied(
      `${path}: "${value}" asks for a peer-pod VM of more than the maximum of ${limit.max} ${limit.unit} ` +
        `(peer-pods webhook ${limit.flag})`,
      403,
    );
  }
}
