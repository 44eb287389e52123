// JSON helpers: the object guard, the JSON copy, structural and semantic equality, Go's syntax errors.
export { isObject, cloneJson, hasKey, presentKeys } from './values.ts';
export { deepEqual, semanticEqual, semanticEqualEmptyAsAbsent } from './equal.ts';
export { goJsonSyntaxError } from './go-syntax-error.ts';
export { parseJsonKeepingFloatLiterals, floatLiteralsOf } from './float-literals.ts';
export { escapePointerToken, unescapePointerToken } from './pointer.ts';
