// apiextensions.k8s.io/v1 CustomResourceDefinition validation (kube's
// ValidateCustomResourceDefinition / ...Update), with kube's field paths and messages. Works on the
// spec as kube sees it after conversion (see spec.ts).
import type { FieldError } from '../../../apimachinery/validation/field-errors.ts';
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject, asString } from '../json.ts';
import { child, index } from '../../../apimachinery/validation/field-path.ts';
import {
  fieldImmutable,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
} from '../../../apimachinery/validation/field-errors.ts';
import { isDNS1035Label, isDNS1123Subdomain, validateName } from '../../../apimachinery/validation/names.ts';
import { crdSpecView, storedVersionsAfterWrite } from './spec.ts';
import type { CrdNames, CrdSpecView, CrdVersionView } from './spec.ts';
import { validateCrdSchema } from './schema.ts';
import { validateColumn, validateSubresources } from './columns.ts';
import { validateSelectableFields } from './selectable-fields.ts';
import { validateConversion } from './conversion.ts';
import { validateApproval } from './approval.ts';
import type { CrdSchemaOptions } from './schema.ts';
import { schemaHas, unprunedDefaults } from './schema-walk.ts';
import { checkMapListKeysMapSet } from './schema-checks.ts';
import { toStructural } from '../schema/structural.ts';
import { versionStruct } from './internal-json.ts';

const OPENAPI_TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

/**
 * Validates a CRD on create, or on update when `old` (the stored CRD) is given. The status kube's
 * strategy would set (stored versions) is taken into account; the generic ObjectMeta checks
 * (labels, annotations, ...) are the caller's.
 */
export function validateCrd(crd: JsonObject, old?: JsonObject): FieldError[] {
  const view = crdSpecView(crd);
  const oldView = old ? crdSpecView(old) : undefined;
  const errs: FieldError[] = [];
  if (!old) errs.push(...validateMetadataName(asObject(crd.metadata) ?? {}, view));
  errs.push(...validateSpec(view, options(oldView)));
  if (old && oldView) errs.push(...validateSpecUpdate(view, oldView, isEstablished(old)));
  errs.push(...validateStoredVersions(storedVersionsAfterWrite(view, old), view.versions));
  errs.push(...validateApproval(crd, old, view.group));
  if (view.preserveUnknownFields && !(oldView?.preserveUnknownFields ?? false)) {
    errs.push(
      fieldInvalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  return errs;
}

function validateMetadataName(meta: JsonObject, view: CrdSpecView): FieldError[] {
  const errs: FieldError[] = [];
  const requiredName = `${view.names.plural}.${view.group}`;
  const nameErrors = (name: string, prefix: boolean) => {
    const msgs = validateName('subdomain', name, prefix);
    if (name !== requiredName) msgs.push('must be spec.names.plural+"."+spec.group');
    return msgs;
  };
  const generateName = asString(meta.generateName) ?? '';
  const name = asString(meta.name) ?? '';
  if (generateName)
    for (const m of nameErrors(generateName, true)) errs.push(fieldInvalid('metadata.generateName', generateName, m));
  if (!name) errs.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const m of nameErrors(name, false)) errs.push(fieldInvalid('metadata.name', name, m));
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
  if (!view.group) errs.push(fieldRequired('spec.group'));
  else {
    const groupErrs = isDNS1123Subdomain(view.group);
    if (groupErrs.length) errs.push(fieldInvalid('spec.group', view.group, groupErrs.join(',')));
    else if (view.group.split('.').length < 2)
      errs.push(fieldInvalid('spec.group', view.group, 'should be a domain with at least one dot'));
  }
  if (!view.scope) errs.push(fieldRequired('spec.scope'));
  else if (view.scope !== 'Cluster' && view.scope !== 'Namespaced') {
    errs.push(fieldNotSupported('spec.scope', view.scope, ['Cluster', 'Namespaced']));
  }

  if (!asObject(view.validation?.openAPIV3Schema)) {
    view.versions.forEach((v, i) => {
      if (asObject(v.schema?.openAPIV3Schema)) return;
      const p = child(index(child(spec, 'versions'), i), 'schema', 'openAPIV3Schema');
      if (opts.requireOpenAPISchema) errs.push(fieldRequired(p));
      else if (v.served) errs.push(fieldRequired(p, 'because otherwise all fields are pruned'));
    });
  }
  const schemas = allSchemas(view);
  if (
    view.preserveUnknownFields &&
    schemas.some((s) => schemaHas(s, (n) => n.default !== undefined && n.default !== null))
  ) {
    errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
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
    if (nameErrs.length) errs.push(fieldInvalid(child(vp, 'name'), v.name, nameErrs.join(',')));
    const subresources = perVersionSubresources ? v.subresources : view.subresources;
    errs.push(...validateVersion(v, vp, hasStatus(subresources), opts));
  });

  if (!unique) errs.push(fieldInvalid('spec.versions', versionsValue(view), 'must contain unique version names'));
  if (storageCount !== 1)
    errs.push(
      fieldInvalid('spec.versions', versionsValue(view), 'must have exactly one version marked as storage version'),
    );
  if (view.versions.length > 0) {
    // kube copies versions[0].name into the internal spec.version and checks it again there.
    const first = view.versions[0].name;
    const firstErrs = isDNS1035Label(first);
    if (first && firstErrs.length) errs.push(fieldInvalid('spec.version', first, firstErrs.join(',')));
  }

  for (const n of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!view.names[n]) errs.push(fieldRequired(`spec.names.${n}`));
  }
  errs.push(...validateNames(view.names, 'spec.names'));

  const anyStatus = hasStatus(view.subresources) || view.versions.some((v) => hasStatus(v.subresources));
  errs.push(...validateCrdSchema(view.validation, anyStatus, opts, 'spec.validation'));
  errs.push(...validateSubresources(view.subresources, 'spec.subresources'));
  (view.columns ?? []).forEach((c, i) => errs.push(...validateColumn(c, index('spec.additionalPrinterColumns', i))));
  if (view.selectableFields?.length) {
    const top = asObject(view.validation?.openAPIV3Schema);
    if (!view.validation)
      errs.push(fieldInvalid('spec.selectableFields', '', 'may only be set when validations.schema is included'));
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
      fieldInvalid(
        'spec.conversion.strategy',
        view.conversion.strategy,
        'must be None if spec.preserveUnknownFields is true',
      ),
    );
  }
  errs.push(...validateConversion(view.conversion));
  return errs;
}

/** kube prints the versions list as its internal Go structs. */
function versionsValue(view: CrdSpecView): unknown {
  return view.versions.map(versionStruct);
}

function validateVersion(
  v: CrdVersionView,
  path: string,
  statusEnabled: boolean,
  opts: CrdSchemaOptions,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const msg of deprecationWarningErrors(v))
    errs.push(fieldInvalid(child(path, 'deprecationWarning'), v.deprecationWarning ?? null, msg));
  errs.push(...validateCrdSchema(v.schema, statusEnabled, opts, child(path, 'schema')));
  errs.push(...validateSubresources(v.subresources, child(path, 'subresources')));
  (v.columns ?? []).forEach((c, i) =>
    errs.push(...validateColumn(c, index(child(path, 'additionalPrinterColumns'), i))),
  );
  if (v.selectableFields?.length) {
    const schema = asObject(v.schema?.openAPIV3Schema);
    if (!schema) {
      errs.push(
        fieldInvalid(
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
    if (value && e.length) errs.push(fieldInvalid(child(path, field), value, e.join(',')));
  };
  const mixed = (field: string, value: string) => {
    const e = isDNS1035Label(value.toLowerCase());
    if (value && e.length)
      errs.push(
        fieldInvalid(child(path, field), value, `may have mixed case, but should otherwise match: ${e.join(',')}`),
      );
  };
  label('plural', names.plural);
  label('singular', names.singular);
  mixed('kind', names.kind);
  mixed('listKind', names.listKind);
  names.shortNames.forEach((s, i) => {
    const e = isDNS1035Label(s);
    if (e.length) errs.push(fieldInvalid(index(child(path, 'shortNames'), i), s, e.join(',')));
  });
  if (names.kind && names.kind === names.listKind)
    errs.push(fieldInvalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  names.categories.forEach((c, i) => {
    const e = isDNS1035Label(c);
    if (e.length) errs.push(fieldInvalid(index(child(path, 'categories'), i), c, e.join(',')));
  });
  return errs;
}

function validateSpecUpdate(view: CrdSpecView, old: CrdSpecView, established: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (established) {
    if (view.scope !== old.scope) errs.push(fieldImmutable('spec.scope', view.scope));
    if (view.names.kind !== old.names.kind) errs.push(fieldImmutable('spec.names.kind', view.names.kind));
  }
  if (view.group !== old.group) errs.push(fieldImmutable('spec.group', view.group));
  if (view.names.plural !== old.names.plural) errs.push(fieldImmutable('spec.names.plural', view.names.plural));
  return errs;
}

function validateStoredVersions(stored: string[] | null, versions: CrdVersionView[]): FieldError[] {
  const p = 'status.storedVersions';
  if (!stored || stored.length === 0) return [fieldInvalid(p, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map<string, number>();
  stored.forEach((v, i) => remaining.set(v, i));
  for (const v of versions) {
    const present = remaining.has(v.name);
    if (v.storage && !present) errs.push(fieldInvalid(p, stored, `must have the storage version ${v.name}`));
    remaining.delete(v.name);
  }
  for (const [v, i] of remaining) {
    errs.push(
      fieldInvalid(
        index(p, i),
        v,
        `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
      ),
    );
  }
  return errs;
}
