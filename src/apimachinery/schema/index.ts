// The CRD schema DSL: one definition gives the structural OpenAPI schema and the TypeScript type.
export { s } from './dsl.ts';
export type { JsonSchema, Schema, Static } from './dsl.ts';
