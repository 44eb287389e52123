// Tools for defining custom resources: a schema DSL that yields both the TypeScript type and the
// structural OpenAPI schema, and the CRD builder.
export { s } from '../../apimachinery/schema/index.ts';
export type { JsonSchema, Schema, Static } from '../../apimachinery/schema/index.ts';
export { customResourceDefinition, mergeCrdVersions } from './builder.ts';
export type { CrdDefinition, CrdNames, PrinterColumn } from './builder.ts';
export { installCrds, servedResources, waitEstablished } from './install.ts';
export type { CrdClient } from './install.ts';
