// The few schema constructs the PeerPodConfig CRD (and its pool) needs beyond the shared DSL `s`:
// CEL rules, defaults, patterns, bounds, maps and int-or-string. Built here, once, rather than
// widening the DSL another API owns.
import type { JsonSchema, Schema } from '../../runtime/index.ts';

export type ExtSchema = JsonSchema & {
  pattern?: string;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  additionalProperties?: JsonSchema;
  'x-kubernetes-validations'?: Array<{ rule: string; message: string; reason?: string; fieldPath?: string }>;
  'x-kubernetes-int-or-string'?: true;
};

export function ext<T>(json: ExtSchema): Schema<T> {
  return { json };
}
