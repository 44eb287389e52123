// Assertions on the Status errors the patch engines throw.
import assert from 'node:assert/strict';
import { StatusError } from '../../../src/apimachinery/errors/index.ts';

export interface ExpectedStatus {
  code: number;
  reason: string;
  message: string;
}

/** Runs `fn`, expects a StatusError with exactly this code, reason and message, and returns it. */
export function assertStatus(fn: () => unknown, expected: ExpectedStatus): StatusError {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof StatusError, `expected a StatusError, got ${String(thrown)}`);
  assert.deepEqual({ code: thrown.code, reason: thrown.reason, message: thrown.message }, expected);
  return thrown;
}

/** kube-apiserver's answer to a patch that cannot be applied (NewGenericServerResponse 422). */
export const NOT_APPLICABLE: ExpectedStatus = {
  code: 422,
  reason: 'Invalid',
  message: 'the server rejected our request due to an error in our request',
};

export const badRequest = (message: string): ExpectedStatus => ({ code: 400, reason: 'BadRequest', message });

/** Freezes a JSON value all the way down, so that any write to it throws. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const child of Object.values(v)) deepFreeze(child);
    Object.freeze(v);
  }
  return v;
}
