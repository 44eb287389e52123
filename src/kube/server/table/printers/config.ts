// Namespaces, ConfigMaps, Secrets and ServiceAccounts: a name, a count or a phase, and an age.
import { AGE, col, NAME } from '../columns.ts';
import { ageOf, asList, asStr, at, countKeys, nameOf } from '../fields.ts';
import type { Printer } from '../types.ts';

export const namespacePrinter: Printer = {
  columns: [NAME, col('Status', 'string', 'The status of the namespace'), AGE],
  cells(ns, now) {
    return [nameOf(ns), asStr(at(ns, 'status', 'phase')), ageOf(ns, now)];
  },
};

export const configMapPrinter: Printer = {
  columns: [NAME, col('Data', 'string', 'Data contains the configuration data.'), AGE],
  cells(cm, now) {
    return [nameOf(cm), countKeys(cm.data) + countKeys(cm.binaryData), ageOf(cm, now)];
  },
};

export const secretPrinter: Printer = {
  columns: [
    NAME,
    col('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    col('Data', 'string', 'Data contains the secret data.'),
    AGE,
  ],
  cells(secret, now) {
    return [nameOf(secret), asStr(secret.type), countKeys(secret.data), ageOf(secret, now)];
  },
};

export const serviceAccountPrinter: Printer = {
  columns: [
    NAME,
    col(
      'Secrets',
      'string',
      'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
    ),
    AGE,
  ],
  cells(sa, now) {
    return [nameOf(sa), asList(sa.secrets).length, ageOf(sa, now)];
  },
};
