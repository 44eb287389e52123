// The table kube-apiserver serves for kinds without a printer (Roles, ClusterRoles, CRDs,
// LimitRanges): NAME and CREATED AT, the creation time in RFC 3339 rather than an age.
import { CREATION_TIMESTAMP_DOC, NAME } from '../columns.ts';
import { meta, nameOf, timeMs } from '../fields.ts';
import { formatTime } from '../../../../apimachinery/time/index.ts';
import type { Printer } from '../types.ts';

export const defaultPrinter: Printer = {
  columns: [NAME, { name: 'Created At', type: 'date', format: '', description: CREATION_TIMESTAMP_DOC, priority: 0 }],
  cells(obj) {
    const ms = timeMs(meta(obj).creationTimestamp);
    // Go formats the zero time as 0001-01-01T00:00:00Z.
    return [nameOf(obj), ms === undefined ? '0001-01-01T00:00:00Z' : formatTime(new Date(ms))];
  },
};
