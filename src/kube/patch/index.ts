// The patch engines behind PATCH requests: JSON patch, JSON merge patch and strategic merge patch,
// plus the merge metadata of built-in kinds that strategic merge patch needs.
export { applyJsonPatch } from './json-patch.ts';
export { applyMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic/strategic.ts';
export { builtinSchemaInfo, builtinPatchFields } from './builtin-schema.ts';
export type { BuiltinSchemaInfo } from './builtin-schema.ts';
export type { PatchField } from './builtin-fields.ts';
export { MAX_JSON_PATCH_OPERATIONS } from './patch-errors.ts';
export { atomicSchemaInfo } from './schema-info.ts';
export type { FieldPath, ListKind, SchemaInfo } from './schema-info.ts';
