// JSON patch (RFC 6902, `application/json-patch+json`) as kube-apiserver applies it, through
// gopkg.in/evanphx/json-patch.v4. The outcomes clients can observe:
// - a body that does not decode as a list of objects is a 400 carrying encoding/json's message;
//   more than 10000 operations is a 413;
// - anything that goes wrong while applying (unknown op, missing path, failed test, bad index) is
//   the fixed 422 of patch-errors.ts;
// - v4's leniencies are kept: `replace` of a missing object member adds it, `add`/`replace`
//   without `value` write null, `copy` from a missing member copies null, negative array indices
//   count from the end for add and remove, and a `test` of a missing member against null passes.
// Paths are resolved here (json-pointer.ts); fast-json-patch then performs each edit on a private
// copy of the document, so neither the document nor the patch passed in is ever modified.
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import { jsonKind } from './go-text.ts';
import { getKey } from './json-tree.ts';
import type { Target } from './json-pointer.ts';
import { findTarget, parseIndex, splitPointer } from './json-pointer.ts';
import { MAX_JSON_PATCH_OPERATIONS, malformedPatch, patchNotApplicable, tooManyOperations } from './patch-errors.ts';
import { cloneJson, isObject, deepEqual, hasKey } from '../../apimachinery/json/index.ts';

/** Applies `patch` (the decoded request body) to a copy of `doc` and returns the copy. */
export function applyJsonPatch(doc: JsonValue, patch: unknown): JsonValue {
  const ops = decodePatch(patch);
  const result = cloneJson(doc);
  for (const op of ops) applyOperation(result, op);
  return result;
}

function decodePatch(patch: unknown): (JsonObject | null)[] {
  if (patch === undefined) throw malformedPatch('unexpected end of JSON input');
  // encoding/json decodes a JSON null into an empty patch.
  if (patch === null) return [];
  if (!Array.isArray(patch)) {
    throw malformedPatch(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of patch) {
    if (op !== null && !isObject(op)) {
      throw malformedPatch(`json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) throw tooManyOperations(patch.length);
  patch.forEach((op: JsonObject | null, i) => rejectReservedNames(op, i));
  return patch as (JsonObject | null)[];
}

// fast-json-patch refuses to write through these names (they would reach Object.prototype), and
// so do we, before touching anything. kube-apiserver has no such restriction; see the report.
function rejectReservedNames(op: JsonObject | null, index: number): void {
  for (const field of ['path', 'from']) {
    const pointer = op === null ? undefined : getKey(op, field);
    if (typeof pointer !== 'string') continue;
    const tokens = splitPointer(pointer);
    const bad = tokens.findIndex((t, i) => t === '__proto__' || (t === 'prototype' && tokens[i - 1] === 'constructor'));
    if (bad >= 0) {
      throw malformedPatch(
        `invalid JSON patch: operation ${index} has ${field} "${pointer}", which uses the reserved member name "${tokens[bad]}"`,
      );
    }
  }
}

function applyOperation(doc: JsonValue, op: JsonObject | null): void {
  const kind = op === null ? undefined : stringField(op, 'op');
  switch (kind) {
    case 'add':
      return add(doc, op as JsonObject);
    case 'remove':
      return removeOp(doc, op as JsonObject);
    case 'replace':
      return replace(doc, op as JsonObject);
    case 'move':
      return move(doc, op as JsonObject);
    case 'copy':
      return copy(doc, op as JsonObject);
    case 'test':
      return test(doc, op as JsonObject);
    default:
      fail(`Unexpected kind: ${kind ?? 'unknown'}`);
  }
}

function add(doc: JsonValue, op: JsonObject): void {
  const path = pathOf(op, 'add', 'path');
  const target = findTarget(doc, path) ?? fail(`add operation does not apply: doc is missing path: "${path}"`);
  insert(doc, target, valueOf(op), `error in add for path: '${path}'`);
}

function removeOp(doc: JsonValue, op: JsonObject): void {
  const path = pathOf(op, 'remove', 'path');
  const target = findTarget(doc, path) ?? fail(`remove operation does not apply: doc is missing path: "${path}"`);
  remove(doc, target, `error in remove for path: '${path}'`);
}

function replace(doc: JsonValue, op: JsonObject): void {
  const path = pathOf(op, 'replace', 'path');
  const target = findTarget(doc, path) ?? fail(`replace operation does not apply: doc is missing path: ${path}`);
  if (!Array.isArray(target.container)) {
    edit(doc, { op: 'add', path: pointerTo(target, target.key), value: valueOf(op) });
    return;
  }
  const i = existingIndex(target) ?? fail(`replace operation does not apply: doc is missing key: ${path}`);
  edit(doc, { op: 'replace', path: pointerTo(target, String(i)), value: valueOf(op) });
}

function move(doc: JsonValue, op: JsonObject): void {
  const from = pathOf(op, 'move', 'from');
  const source = findTarget(doc, from) ?? fail(`move operation does not apply: doc is missing from path: ${from}`);
  const value = read(source, `error in move for path: '${source.key}'`);
  remove(doc, source, `error in move for path: '${source.key}'`);
  const path = pathOf(op, 'move', 'path');
  const target =
    findTarget(doc, path) ?? fail(`move operation does not apply: doc is missing destination path: ${path}`);
  insert(doc, target, value ?? null, `error in move for path: '${path}'`);
}

function copy(doc: JsonValue, op: JsonObject): void {
  const from = pathOf(op, 'copy', 'from');
  const source = findTarget(doc, from) ?? fail(`copy operation does not apply: doc is missing from path: ${from}`);
  const value = read(source, `error in copy for from: '${from}'`);
  const path = pathOf(op, 'copy', 'path');
  const target =
    findTarget(doc, path) ?? fail(`copy operation does not apply: doc is missing destination path: ${path}`);
  insert(doc, target, cloneJson(value ?? null), 'error while adding value during copy');
}

function test(doc: JsonValue, op: JsonObject): void {
  const path = pathOf(op, 'test', 'path');
  const target = findTarget(doc, path) ?? fail(`test operation does not apply: is missing path: ${path}`);
  const actual = read(target, `error in test for path: '${path}'`);
  const expected = getKey(op, 'value');
  const passed =
    actual === undefined || actual === null ? expected === null : expected !== undefined && deepEqual(actual, expected);
  if (!passed) fail(`testing value ${path} failed: test failed`);
}

/** The value at `target` for reading; undefined for a missing object member, as in v4. */
function read(target: Target, context: string): JsonValue | undefined {
  if (!Array.isArray(target.container)) return getKey(target.container, target.key);
  const i = existingIndex(target) ?? fail(`${context}: ${badIndex(target.key)}`);
  return target.container[i];
}

function insert(doc: JsonValue, target: Target, value: JsonValue, context: string): void {
  const { container, key } = target;
  if (!Array.isArray(container) || key === '-') {
    edit(doc, { op: 'add', path: pointerTo(target, key), value });
    return;
  }
  let i = parseIndex(key);
  if (i === undefined) fail(`${context}: value was not a proper array index: '${key}': ${atoiError(key)}`);
  const size = container.length + 1;
  if (i >= size || i < -size) fail(`${context}: Unable to access invalid index: ${i}: invalid index referenced`);
  if (i < 0) i += size;
  edit(doc, { op: 'add', path: pointerTo(target, String(i)), value });
}

function remove(doc: JsonValue, target: Target, context: string): void {
  const { container, key } = target;
  if (!Array.isArray(container)) {
    if (!hasKey(container, key)) fail(`${context}: Unable to remove nonexistent key: ${key}: missing value`);
    edit(doc, { op: 'remove', path: pointerTo(target, key) });
    return;
  }
  let i = parseIndex(key);
  if (i === undefined) fail(`${context}: ${atoiError(key)}`);
  if (i >= container.length || i < -container.length) {
    fail(`${context}: Unable to access invalid index: ${i}: invalid index referenced`);
  }
  if (i < 0) i += container.length;
  edit(doc, { op: 'remove', path: pointerTo(target, String(i)) });
}

function existingIndex(target: Target): number | undefined {
  const i = parseIndex(target.key);
  const length = (target.container as JsonValue[]).length;
  return i === undefined || i < 0 || i >= length ? undefined : i;
}

function badIndex(key: string): string {
  const i = parseIndex(key);
  return i === undefined ? atoiError(key) : `Unable to access invalid index: ${i}: invalid index referenced`;
}

function atoiError(key: string): string {
  return `strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`;
}

function edit(doc: JsonValue, op: Operation): void {
  jsonpatch.applyOperation(doc, op, false, true, true);
}

function pointerTo(target: Target, key: string): string {
  return [...target.parentTokens, key].map((t) => `/${jsonpatch.escapePathComponent(t)}`).join('');
}

/** The operation's `value`: v4 writes null when it is absent. Copied so the result never shares
 * structure with the request body. */
function valueOf(op: JsonObject): JsonValue {
  const v = getKey(op, 'value');
  return v === undefined ? null : cloneJson(v);
}

function stringField(op: JsonObject, field: string): string | undefined {
  const v = getKey(op, field);
  return typeof v === 'string' ? v : undefined;
}

function pathOf(op: JsonObject, kind: string, field: 'path' | 'from'): string {
  const v = getKey(op, field);
  if (typeof v === 'string') return v;
  return fail(`${kind} operation failed to decode ${field}`);
}

function fail(detail: string): never {
  throw patchNotApplicable(detail);
}
