// JSON helpers: the object guard, the JSON copy, structural and semantic equality.
export { isObject, cloneJson, hasKey, presentKeys } from './values.ts';
export { deepEqual, semanticEqual, semanticEqualEmptyAsAbsent } from './equal.ts';
