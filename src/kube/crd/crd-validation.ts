// apiextensions.k8s.io/v1 CustomResourceDefinition validation (kube's
// ValidateCustomResourceDefinition / ...Update), with kube's field paths and messages. Works on the
// spec as kube sees it after conversion (see crd-spec.ts).
import type { FieldError } from '../errors.ts';
import type { JsonObject } from '../types.ts';
import { asArray, asObject, asString } from './json.ts';
import { child, index, key } from './field-path.ts';
import { forbidden, immutable, invalid, notSupported, required, tooMany, duplicate } from './field-error.ts';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from './names.ts';
import { crdSpecView, storedVersionsAfterWrite } from './crd-spec.ts';
import type { CrdNames, CrdSpecView, CrdVersionView } from './crd-spec.ts';
import { validateCrdSchema } from './crd-schema-validation.ts';
import type { CrdSchemaOptions } from './crd-schema-validation.ts';
import { schemaHas, unprunedDefaults } from './schema-walk.ts';
import { checkMapListKeysMapSet } from './schema-checks.ts';
import { toStructural } from './structural.ts';
import type { Structural } from './structural.ts';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
const OPENAPI_TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);
const APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';
const MAX_SELECTABLE_FIELDS = 8;

/**
 * Validates a CRD on create, or on update when `old` (the stored CRD) is given. The status kube's
 * strategy would set (stored versions) is taken into account; the generic ObjectMeta checks
 * (labels, annotations, ...) are the caller's.
 */
export function validateCrd(crd: JsonObject, old?: JsonObject): FieldError[] {
  const view = crdSpecView(crd);
  const oldView = old ? crdSpecView(old) : undefined;
  const errs: FieldError[] = [];
  if (!old) errs.push(...validateName(asObject(crd.metadata) ?? {}, view));
  errs.push(...validateSpec(view, options(oldView)));
  if (old && oldView) errs.push(...validateSpecUpdate(view, oldView, isEstablished(old)));
  errs.push(...validateStoredVersions(storedVersionsAfterWrite(view, old), view.versions));
  errs.push(...validateApproval(crd, old, view.group));
  if (view.preserveUnknownFields && !(oldView?.preserveUnknownFields ?? false)) {
    errs.push(
      invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  return errs;
}

function validateName(meta: JsonObject, view: CrdSpecView): FieldError[] {
  const errs: FieldError[] = [];
  const requiredName = `${view.names.plural}.${view.group}`;
  const nameErrors = (name: string, prefix: boolean) => {
    const msgs = nameIsDNSSubdomain(name, prefix);
    if (name !== requiredName) msgs.push('must be spec.names.plural+"."+spec.group');
    return msgs;
  };
  const generateName = asString(meta.generateName) ?? '';
  const name = asString(meta.name) ?? '';
  if (generateName)
    for (const m of nameErrors(generateName, true)) errs.push(invalid('metadata.generateName', generateName, m));
  if (!name) errs.push(required('metadata.name', 'name or generateName is required'));
  else for (const m of nameErrors(name, false)) errs.push(invalid('metadata.name', name, m));
  return errs;
}

function isEstablished(crd: JsonObject): boolean {
  const conditions = asArray(asObject(crd.status)?.conditions) ?? [];
  return conditions.some((c) => asObject(c)?.type === 'Established' && asObject(c)?.status === 'True');
}

function allSchemas(view: CrdSpecView): JsonObject[] {
  const out: JsonObject[] = [];
  const top = asObject(view.validation?.openAPIV3Schema);
  if (top) out.push(top);
  for (const v of view.versions) {
    const s = asObject(v.schema?.openAPIV3Schema);
    if (s) out.push(s);
  }
  return out;
}

function allVersionsHaveSchema(view: CrdSpecView): boolean {
  if (asObject(view.validation?.openAPIV3Schema)) return true;
  return view.versions.every((v) => asObject(v.schema?.openAPIV3Schema));
}

/** Rules an update must not newly break but that do not reject CRDs already breaking them. */
function options(old: CrdSpecView | undefined): CrdSchemaOptions & { requireOpenAPISchema: boolean } {
  const oldSchemas = old ? allSchemas(old) : [];
  const has = (pred: (s: JsonObject) => boolean) => oldSchemas.some((s) => schemaHas(s, pred));
  return {
    requireOpenAPISchema: !old || allVersionsHaveSchema(old),
    requireValidPropertyType: !has((s) => typeof s.type === 'string' && s.type !== '' && !OPENAPI_TYPES.has(s.type)),
    requirePrunedDefaults: !oldSchemas.some((s) => unprunedDefaults(s)),
    requireAtomicSetType: !has(nonAtomicSetType),
    requireMapListKeysMapSetValidation: !has((s) => checkMapListKeysMapSet(s, '').length > 0),
  };
}

function nonAtomicSetType(s: JsonObject): boolean {
  const items = asObject(s.items);
  if (s['x-kubernetes-list-type'] !== 'set' || !items) return false;
  if (items.type === 'array')
    return typeof items['x-kubernetes-list-type'] === 'string' && items['x-kubernetes-list-type'] !== 'atomic';
  if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
  return false;
}

function hasStatus(subresources: JsonObject | undefined): boolean {
  return asObject(subresources?.status) !== undefined;
}

function validateSpec(view: CrdSpecView, opts: CrdSchemaOptions & { requireOpenAPISchema: boolean }): FieldError[] {
  const errs: FieldError[] = [];
  const spec = 'spec';
  if (!view.group) errs.push(required('spec.group'));
  else {
    const groupErrs = isDNS1123Subdomain(view.group);
    if (groupErrs.length) errs.push(invalid('spec.group', view.group, groupErrs.join(',')));
    else if (view.group.split('.').length < 2)
      errs.push(invalid('spec.group', view.group, 'should be a domain with at least one dot'));
  }
  if (!view.scope) errs.push(required('spec.scope'));
  else if (view.scope !== 'Cluster' && view.scope !== 'Namespaced') {
    errs.push(notSupported('spec.scope', view.scope, ['Cluster', 'Namespaced']));
  }

  if (!asObject(view.validation?.openAPIV3Schema)) {
    view.versions.forEach((v, i) => {
      if (asObject(v.schema?.openAPIV3Schema)) return;
      const p = child(index(child(spec, 'versions'), i), 'schema', 'openAPIV3Schema');
      if (opts.requireOpenAPISchema) errs.push(required(p));
      else if (v.served) errs.push(required(p, 'because otherwise all fields are pruned'));
    });
  }
  const schemas = allSchemas(view);
  if (
    view.preserveUnknownFields &&
    schemas.some((s) => schemaHas(s, (n) => n.default !== undefined && n.default !== null))
  ) {
    errs.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  const perVersionSubresources = view.subresources === undefined && view.versions.some((v) => v.subresources);
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  view.versions.forEach((v, i) => {
    const vp = index(child(spec, 'versions'), i);
    if (v.storage) storageCount++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = isDNS1035Label(v.name);
    if (nameErrs.length) errs.push(invalid(child(vp, 'name'), v.name, nameErrs.join(',')));
    const subresources = perVersionSubresources ? v.subresources : view.subresources;
    errs.push(...validateVersion(v, vp, hasStatus(subresources), opts));
  });

  if (!unique) errs.push(invalid('spec.versions', versionsValue(view), 'must contain unique version names'));
  if (storageCount !== 1)
    errs.push(invalid('spec.versions', versionsValue(view), 'must have exactly one version marked as storage version'));
  if (view.versions.length > 0) {
    // kube copies versions[0].name into the internal spec.version and checks it again there.
    const first = view.versions[0].name;
    const firstErrs = isDNS1035Label(first);
    if (first && firstErrs.length) errs.push(invalid('spec.version', first, firstErrs.join(',')));
  }

  for (const n of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!view.names[n]) errs.push(required(`spec.names.${n}`));
  }
  errs.push(...validateNames(view.names, 'spec.names'));

  const anyStatus = hasStatus(view.subresources) || view.versions.some((v) => hasStatus(v.subresources));
  errs.push(...validateCrdSchema(view.validation, anyStatus, opts, 'spec.validation'));
  errs.push(...validateSubresources(view.subresources, 'spec.subresources'));
  (view.columns ?? []).forEach((c, i) => errs.push(...validateColumn(c, index('spec.additionalPrinterColumns', i))));
  if (view.selectableFields?.length) {
    const top = asObject(view.validation?.openAPIV3Schema);
    if (!view.validation)
      errs.push(invalid('spec.selectableFields', '', 'may only be set when validations.schema is included'));
    else
      errs.push(
        ...validateSelectableFields(
          view.selectableFields,
          top ? toStructural(top) : undefined,
          'spec.selectableFields',
        ),
      );
  }
  if (view.conversion.strategy !== 'None' && view.preserveUnknownFields) {
    errs.push(
      invalid(
        'spec.conversion.strategy',
        view.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  errs.push(...validateConversion(view.conversion));
  return errs;
}

/** kube prints the versions list as its internal Go structs in JSON; this is the closest JSON form. */
function versionsValue(view: CrdSpecView): unknown {
  return view.versions.map((v) => ({ name: v.name, served: v.served, storage: v.storage }));
}

function validateVersion(
  v: CrdVersionView,
  path: string,
  statusEnabled: boolean,
  opts: CrdSchemaOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of deprecationWarningErrors(v))
    errs.push(invalid(child(path, 'deprecationWarning'), v.deprecationWarning ?? null, msg));
  errs.push(...validateCrdSchema(v.schema, statusEnabled, opts, child(path, 'schema')));
  errs.push(...validateSubresources(v.subresources, child(path, 'subresources')));
  (v.columns ?? []).forEach((c, i) =>
    errs.push(...validateColumn(c, index(child(path, 'additionalPrinterColumns'), i))),
  );
  if (v.selectableFields?.length) {
    const schema = asObject(v.schema?.openAPIV3Schema);
    if (!schema) {
      errs.push(
        invalid(
          child(path, 'selectableFields'),
          '',
          'may only be set when `version.schema.openAPIV3Schema` is not included',
        ),
      );
    } else
      errs.push(...validateSelectableFields(v.selectableFields, toStructural(schema), child(path, 'selectableFields')));
  }
  return errs;
}

function deprecationWarningErrors(v: CrdVersionView): string[] {
  const w = v.deprecationWarning;
  if (!v.deprecated && w !== undefined) return ['can only be set for deprecated versions'];
  if (w === undefined) return [];
  const errs: string[] = [];
  if (Buffer.byteLength(w) > 256) errs.push('must be <= 256 characters long');
  if (w.length === 0) errs.push('must not be an empty string');
  let offset = 0;
  for (const ch of w) {
    if (/[\p{Cc}]/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; control character found at index ${offset}`);
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(`must only contain printable UTF-8 characters; non-printable character found at index ${offset}`);
      break;
    }
    offset += Buffer.byteLength(ch);
  }
  return errs;
}

function validateNames(names: CrdNames, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const label = (field: string, value: string) => {
    const e = isDNS1035Label(value);
    if (value && e.length) errs.push(invalid(child(path, field), value, e.join(',')));
  };
  const mixed = (field: string, value: string) => {
    const e = isDNS1035Label(value.toLowerCase());
    if (value && e.length)
      errs.push(invalid(child(path, field), value, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  };
  label('plural', names.plural);
  label('singular', names.singular);
  mixed('kind', names.kind);
  mixed('listKind', names.listKind);
  names.shortNames.forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length) errs.push(invalid(index(child(path, 'shortNames'), i), s, e.join(',')));
  });
  if (names.kind && names.kind === names.listKind)
    errs.push(invalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  names.categories.forEach((c, i) => {
    const e = isDNS1035Label(c);
    if (e.length) errs.push(invalid(index(child(path, 'categories'), i), c, e.join(',')));
  });
  return errs;
}

/** kube's validateSimpleJSONPath. */
function simpleJSONPath(s: string, path: string): FieldError[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateSubresources(sub: JsonObject | undefined, path: string): FieldError[] {
  const scale = asObject(sub?.scale);
  if (!scale) return [];
  const errs: FieldError[] = [];
  const spec = asString(scale.specReplicasPath) ?? '';
  const status = asString(scale.statusReplicasPath) ?? '';
  const selector = asString(scale.labelSelectorPath);
  const sp = child(path, 'scale.specReplicasPath');
  if (!spec) errs.push(required(sp));
  else {
    const e = simpleJSONPath(spec, sp);
    if (e.length) errs.push(...e);
    else if (!spec.startsWith('.spec.')) errs.push(invalid(sp, spec, 'should be a json path under .spec'));
  }
  const stp = child(path, 'scale.statusReplicasPath');
  if (!status) errs.push(required(stp));
  else {
    const e = simpleJSONPath(status, stp);
    if (e.length) errs.push(...e);
    else if (!status.startsWith('.status.')) errs.push(invalid(stp, status, 'should be a json path under .status'));
  }
  if (selector) {
    const lp = child(path, 'scale.labelSelectorPath');
    const e = simpleJSONPath(selector, lp);
    if (e.length) errs.push(...e);
    else if (!selector.startsWith('.spec.') && !selector.startsWith('.status.')) {
      errs.push(invalid(lp, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

function validateColumn(col: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(col.name) ?? '';
  const type = asString(col.type) ?? '';
  const format = asString(col.format) ?? '';
  const jsonPath = asString(col.jsonPath) ?? '';
  if (!name) errs.push(required(child(path, 'name')));
  const typeMsg = `must be one of ${COLUMN_TYPES.join(',')}`;
  if (!type) errs.push(required(child(path, 'type'), typeMsg));
  else if (!COLUMN_TYPES.includes(type)) errs.push(invalid(child(path, 'type'), type, typeMsg));
  if (format && !COLUMN_FORMATS.includes(format)) {
    errs.push(invalid(child(path, 'format'), format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  }
  // The internal field is named JSONPath, and kube reports it under that name.
  if (!jsonPath) errs.push(required(child(path, 'JSONPath')));
  else errs.push(...simpleJSONPath(jsonPath, child(path, 'JSONPath')));
  return errs;
}

/** cel.ValidFieldPath without array notation: resolves `.a.b` to a schema node or explains why not. */
function resolveFieldPath(
  jsonPath: string,
  schema: Structural | undefined,
): { segments: string[]; node?: Structural; error?: string } {
  const tokens = jsonPath.split(/([.[\]])/).filter((t) => t !== '');
  const segments: string[] = [];
  let node = schema;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok === '[') return { segments, error: 'array notation is not allowed' };
    if (tok !== '.') return { segments, error: `expected [ or . but got: ${tok}` };
    const name = tokens[++i];
    if (name === undefined) return { segments, error: 'unexpected end of JSON path' };
    if (node?.properties) {
      node = node.properties.get(name);
      if (!node) return { segments, error: 'does not refer to a valid field' };
    } else if (node?.additionalProperties) node = node.additionalProperties.schema;
    else return { segments, error: 'does not refer to a valid field' };
    segments.push(name);
  }
  return { segments, node };
}

function validateSelectableFields(fields: JsonObject[], schema: Structural | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const p = index(path, i);
    const jsonPath = asString(f.jsonPath) ?? '';
    if (!jsonPath) {
      errs.push(required(child(p, 'jsonPath')));
      return;
    }
    const r = resolveFieldPath(jsonPath, schema);
    if (r.error) {
      errs.push(invalid(child(p, 'jsonPath'), jsonPath, `is an invalid path: ${r.error}`));
      return;
    }
    if (r.segments[0] === 'metadata')
      errs.push(invalid(child(p, 'jsonPath'), jsonPath, 'must not point to fields in metadata'));
    if (!r.node || !['string', 'boolean', 'integer'].includes(r.node.type)) {
      errs.push(
        invalid(
          child(p, 'jsonPath'),
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
    const id = r.segments.join('.');
    if (unique.has(id)) errs.push(duplicate(child(p, 'jsonPath'), jsonPath));
    else unique.add(id);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(path, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}

function validateConversion(conv: CrdSpecView['conversion']): FieldError[] {
  const errs: FieldError[] = [];
  const p = 'spec.conversion';
  if (!conv.strategy) errs.push(required(child(p, 'strategy')));
  else if (conv.strategy !== 'None' && conv.strategy !== 'Webhook')
    errs.push(notSupported(child(p, 'strategy'), conv.strategy, ['None', 'Webhook']));
  if (conv.strategy === 'Webhook') {
    const cc = conv.webhookClientConfig;
    if (!cc) errs.push(required(child(p, 'webhookClientConfig'), 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined)) {
      errs.push(required(child(p, 'webhookClientConfig'), 'exactly one of url or service is required'));
    }
    const versions = conv.conversionReviewVersions ?? [];
    const vp = child(p, 'conversionReviewVersions');
    if (versions.length < 1) errs.push(required(vp));
    else {
      const seen = new Set<string>();
      let accepted = false;
      versions.forEach((v, i) => {
        const s = String(v);
        if (seen.has(s)) {
          errs.push(invalid(index(vp, i), s, 'duplicate version'));
          return;
        }
        seen.add(s);
        for (const m of isDNS1035Label(s)) errs.push(invalid(index(vp, i), s, m));
        if (s === 'v1' || s === 'v1beta1') accepted = true;
      });
      if (!accepted) errs.push(invalid(vp, versions, 'must include at least one of v1, v1beta1'));
    }
  } else {
    if (conv.webhookClientConfig)
      errs.push(forbidden(child(p, 'webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if (conv.conversionReviewVersions?.length) {
      errs.push(
        forbidden(child(p, 'conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'),
      );
    }
  }
  return errs;
}

function validateSpecUpdate(view: CrdSpecView, old: CrdSpecView, established: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (established) {
    if (view.scope !== old.scope) errs.push(immutable('spec.scope', view.scope));
    if (view.names.kind !== old.names.kind) errs.push(immutable('spec.names.kind', view.names.kind));
  }
  if (view.group !== old.group) errs.push(immutable('spec.group', view.group));
  if (view.names.plural !== old.names.plural) errs.push(immutable('spec.names.plural', view.names.plural));
  return errs;
}

function validateStoredVersions(stored: string[] | null, versions: CrdVersionView[]): FieldError[] {
  const p = 'status.storedVersions';
  if (!stored || stored.length === 0) return [invalid(p, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    const present = remaining.has(v.name);
    if (v.storage && !present) errs.push(invalid(p, stored, `must have the storage version ${v.name}`));
    remaining.delete(v.name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      invalid(
        index(p, i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}

type Approval = 'invalid' | 'approved' | 'bypassed' | 'missing';

function approvalState(crd: JsonObject): { state: Approval; reason: string } {
  const annotations = asObject(asObject(crd.metadata)?.annotations) ?? {};
  const value = asString(annotations[APPROVAL_ANNOTATION]) ?? '';
  const link = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (!value)
    return {
      state: 'missing',
      reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}", ${link}`,
    };
  if (value.startsWith('unapproved')) return { state: 'bypassed', reason: '' };
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/\s]+/.test(value)) return { state: 'approved', reason: '' };
  return {
    state: 'invalid',
    reason: `protected groups must have approval annotation "${APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${link}`,
  };
}

function validateApproval(crd: JsonObject, old: JsonObject | undefined, group: string): FieldError[] {
  const isProtected = ['k8s.io', 'kubernetes.io'].some((g) => group === g || group.endsWith(`.${g}`));
  if (!isProtected) return [];
  const now = approvalState(crd);
  if (old && approvalState(old).state === now.state) return [];
  const p = key('metadata.annotations', APPROVAL_ANNOTATION);
  const value = asString(asObject(asObject(crd.metadata)?.annotations)?.[APPROVAL_ANNOTATION]) ?? '';
  if (now.state === 'missing') return [required(p, now.reason)];
  if (now.state === 'invalid') return [invalid(p, value, now.reason)];
  return [];
}
