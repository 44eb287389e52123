// CustomResourceDefinition support for the embedded apiserver: CRD validation, compiled
// per-version schemas for custom resources, and printer-column JSONPath.
export { validateCrd } from './validation/validate.ts';
export { compileCrdVersion, NAME_COLUMN } from './compile.ts';
export type { CompiledSchema, PrinterColumn, ScaleInfo } from './compile.ts';
export type { PruneOutcome } from './schema/pruning.ts';
export type { Structural } from './schema/structural.ts';
export { findResults, parseJsonPath, printerCell } from './jsonpath.ts';
export type { JsonPath, PrinterColumnLike } from './jsonpath.ts';
