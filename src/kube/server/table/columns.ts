// Column definitions shared by the built-in printers. Descriptions follow the API field docs
// kube-apiserver sends; kubectl shows only names, but clients may read the rest.
import { NAME_COLUMN } from '../../crd/index.ts';
import type { ColumnDefinition } from './types.ts';

export const CREATION_TIMESTAMP_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export function col(name: string, type: string, description: string, priority = 0, format = ''): ColumnDefinition {
  return { name, type, format, description, priority };
}

/** A priority-1 column: shown by `kubectl get -o wide` only. */
export function wide(name: string, type: string, description: string): ColumnDefinition {
  return col(name, type, description, 1);
}

export const NAME: ColumnDefinition = { ...NAME_COLUMN };
export const AGE: ColumnDefinition = col('Age', 'string', CREATION_TIMESTAMP_DOC);

export const CONTAINERS = wide('Containers', 'string', 'Names of each container in the template.');
export const IMAGES = wide('Images', 'string', 'Images referenced by each container in the template.');
