// The errors kube-apiserver gives when a write of a built-in kind does not decode into its Go
// type (the kind's strategy.decodeErrors finds the problems), in the shape each handler wraps
// them in:
// - create and update (handlers/create.go, update.go → rest.go transformDecodeError): 400
//   `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal …`;
// - JSON and merge patches (handlers/patch.go jsonPatcher.applyPatchToCurrentObject): 422 with
//   one cause on field `patch` whose value is the patched object's JSON, as
//   `errors.NewInvalid(schema.GroupKind{}, "", …)` words it; a patch that changes kind or
//   apiVersion fails the same way, with the scheme's conversion error;
// - strategic merge patches (patch.go applyPatchToObject): 422 the same way, the value being the
//   patch printed with Go's `%+v`, the error the unstructured converter's.
import { invalid } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { isObject } from '../../../apimachinery/json/index.ts';
import { compareStrings } from '../../../apimachinery/strings/index.ts';
import { goPlain } from '../../builtins/index.ts';
import { fieldInvalid, toCauses } from '../../../apimachinery/validation/field-errors.ts';
import { StatusError } from '../../../apimachinery/errors/index.ts';
import { builtinResourceDefs } from '../builtins.ts';
import type { PatchType } from '../patching.ts';
import { apiVersionOf, type ResourceDef } from '../resource.ts';

/** What the checks need of a resource: its kind and how its objects decode. */
export type Decoding = Pick<ResourceDef, 'group' | 'version' | 'kind' | 'builtin' | 'strategy'>;

/** Create and update: the body must decode into the kind's type. */
export function checkBodyDecodes(def: Decoding, obj: JsonObject): void {
  const [problem] = def.strategy.decodeErrors?.(obj, 'json') ?? [];
  if (problem === undefined) return;
  throw new StatusError(
    400,
    'BadRequest',
    `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${problem}`,
  );
}

/**
 * A JSON, merge or strategic merge patch's result must decode into the kind's type, as the same
 * kind: a patch cannot turn a ConfigMap into a Secret. Strategic merge patches decode into the
 * endpoint's type whatever the patched kind says, so there kind and apiVersion are just reset.
 */
export function checkPatchedDecodes(
  def: Decoding,
  patchType: Exclude<PatchType, 'apply'>,
  patchBody: unknown,
  next: JsonObject,
): void {
  if (!def.builtin || !isObject(next)) return;
  if (patchType === 'strategic') {
    const [problem] = def.strategy.decodeErrors?.(next, 'unstructured') ?? [];
    if (problem !== undefined) throw patchInvalid(goPlain(patchBody as JsonValue), problem);
    next.apiVersion = apiVersionOf(def);
    next.kind = def.kind;
    return;
  }
  const problem = kindChangeError(def, next) ?? def.strategy.decodeErrors?.(next, 'json')[0];
  if (problem === undefined) return;
  throw patchInvalid(patchedJson(next, patchType, patchBody), problem);
}

function patchInvalid(value: string, detail: string): StatusError {
  return invalid('', '', '', toCauses([fieldInvalid('patch', value, detail)]));
}

/**
 * The JSON serializer takes apiVersion and kind from the data (an absent one defaults to the
 * endpoint's), creates that type and converts it into the endpoint's: another registered kind
 * has no conversion, an unknown one is not in the scheme (runtime/scheme.go, conversion/converter.go).
 */
function kindChangeError(def: Decoding, next: JsonObject): string | undefined {
  const apiVersion =
    typeof next.apiVersion === 'string' && next.apiVersion !== '' ? next.apiVersion : apiVersionOf(def);
  const kind = typeof next.kind === 'string' && next.kind !== '' ? next.kind : def.kind;
  if (apiVersion === apiVersionOf(def) && kind === def.kind) {
    next.apiVersion = apiVersion;
    next.kind = kind;
    return undefined;
  }
  if (!registeredKinds().has(`${apiVersion}/${kind}`)) {
    return `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/api/legacyscheme/scheme.go:30"`;
  }
  const version = apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
  const internal = def.group === '' ? 'core' : def.group.split('.')[0];
  return `converting (${version}.${kind}) to (${internal}.${def.kind}): unknown conversion`;
}

let registered: Set<string> | undefined;
function registeredKinds(): Set<string> {
  registered ??= new Set(builtinResourceDefs().map((d) => `${apiVersionOf(d)}/${d.kind}`));
  return registered;
}

/**
 * The patched object as evanphx/json-patch writes it: documents it walked into (the root, the
 * containers along each operation's path, every object a merge patch merged into) are re-encoded
 * from Go maps, keys sorted; the rest keeps the encoder's field order.
 */
function patchedJson(next: JsonObject, patchType: 'json' | 'merge', patchBody: unknown): string {
  if (patchType === 'merge') return render(next, isObject(patchBody as JsonValue) ? (patchBody as JsonObject) : {});
  const touched: JsonObject = {};
  for (const op of Array.isArray(patchBody) ? patchBody : []) {
    if (!isObject(op as JsonValue)) continue;
    for (const p of [(op as JsonObject).path, (op as JsonObject).from]) {
      if (typeof p !== 'string') continue;
      const segments = p.split('/').slice(1, -1);
      let at = touched;
      for (const s of segments) {
        const k = s.replace(/~1/g, '/').replace(/~0/g, '~');
        if (!isObject(at[k] as JsonValue)) at[k] = {};
        at = at[k] as JsonObject;
      }
    }
  }
  return render(next, touched);
}

function escapeHtml(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function render(v: JsonValue, touched: JsonValue | undefined): string {
  if (isObject(v) && isObject(touched as JsonValue)) {
    const t = touched as JsonObject;
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort(compareStrings);
    return `{${keys.map((k) => `${escapeHtml(JSON.stringify(k))}:${render(v[k] as JsonValue, t[k])}`).join(',')}}`;
  }
  if (Array.isArray(v) && isObject(touched as JsonValue)) {
    const t = touched as JsonObject;
    return `[${v.map((x, i) => render(x, t[String(i)])).join(',')}]`;
  }
  return escapeHtml(JSON.stringify(v) ?? 'null');
}
