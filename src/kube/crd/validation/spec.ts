// A CRD's spec as kube validates it. kube first converts apiextensions/v1 into its internal
// version, applying v1 defaults (singular, listKind, conversion) and — when every version has the
// same schema, subresources, printer columns or selectable fields — moving them to the top level.
// That move decides where errors are reported: a one-version CRD's schema errors read
// `spec.validation.openAPIV3Schema...`, a CRD with differing schemas `spec.versions[1].schema...`.
import type { JsonObject, JsonValue } from '../../../apimachinery/meta/index.ts';
import { asArray, asObject, asString } from '../json.ts';
import { semanticEqualEmptyAsAbsent } from '../../../apimachinery/json/index.ts';

export interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface CrdVersionView {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  /** The `schema` wrapper ({openAPIV3Schema}); unset when moved to the top level. */
  schema?: JsonObject;
  subresources?: JsonObject;
  columns?: JsonObject[];
  selectableFields?: JsonObject[];
}

export interface CrdSpecView {
  group: string;
  scope: string;
  names: CrdNames;
  preserveUnknownFields: boolean;
  versions: CrdVersionView[];
  validation?: JsonObject;
  subresources?: JsonObject;
  columns?: JsonObject[];
  selectableFields?: JsonObject[];
  conversion: { strategy: string; webhookClientConfig?: JsonObject; conversionReviewVersions?: JsonValue[] };
}

function strings(v: unknown): string[] {
  return (asArray(v) ?? []).map((x) => (typeof x === 'string' ? x : String(x)));
}

function objects(v: unknown): JsonObject[] | undefined {
  const a = asArray(v);
  return a?.map((x) => asObject(x) ?? {});
}

export function crdSpecView(crd: JsonObject): CrdSpecView {
  const spec = asObject(crd.spec) ?? {};
  const names = asObject(spec.names) ?? {};
  const kind = asString(names.kind) ?? '';
  const view: CrdSpecView = {
    group: asString(spec.group) ?? '',
    scope: asString(spec.scope) ?? '',
    names: {
      plural: asString(names.plural) ?? '',
      singular: asString(names.singular) || kind.toLowerCase(),
      kind,
      listKind: asString(names.listKind) || (kind ? `${kind}List` : ''),
      shortNames: strings(names.shortNames),
      categories: strings(names.categories),
    },
    preserveUnknownFields: spec.preserveUnknownFields === true,
    versions: (asArray(spec.versions) ?? []).map((v) => {
      const o = asObject(v) ?? {};
      const version: CrdVersionView = {
        name: asString(o.name) ?? '',
        served: o.served === true,
        storage: o.storage === true,
        deprecated: o.deprecated === true,
        schema: asObject(o.schema),
        subresources: asObject(o.subresources),
        columns: objects(o.additionalPrinterColumns),
        selectableFields: objects(o.selectableFields),
      };
      if (typeof o.deprecationWarning === 'string') version.deprecationWarning = o.deprecationWarning;
      return version;
    }),
    conversion: { strategy: 'None' },
  };
  const conversion = asObject(spec.conversion);
  if (conversion) {
    view.conversion = { strategy: asString(conversion.strategy) ?? '' };
    const webhook = asObject(conversion.webhook);
    if (webhook) {
      const cc = asObject(webhook.clientConfig);
      if (cc) view.conversion.webhookClientConfig = cc;
      const crv = asArray(webhook.conversionReviewVersions);
      if (crv) view.conversion.conversionReviewVersions = crv;
    }
  }
  promoteIdentical(view);
  return view;
}

function promoteIdentical(view: CrdSpecView): void {
  const vs = view.versions;
  if (vs.length === 0) return;
  const identical = (pick: (v: CrdVersionView) => unknown) =>
    vs.every((v) => semanticEqualEmptyAsAbsent(pick(v), pick(vs[0])));
  if (identical((v) => v.subresources)) {
    view.subresources = vs[0].subresources;
    for (const v of vs) delete v.subresources;
  }
  if (identical((v) => v.schema)) {
    view.validation = vs[0].schema;
    for (const v of vs) delete v.schema;
  }
  if (identical((v) => v.columns)) {
    view.columns = vs[0].columns;
    for (const v of vs) delete v.columns;
  }
  if (identical((v) => v.selectableFields)) {
    view.selectableFields = vs[0].selectableFields;
    for (const v of vs) delete v.selectableFields;
  }
}

/** Versions recorded as stored once kube's create/update strategy ran (it adds the first storage version). */
export function storedVersionsAfterWrite(view: CrdSpecView, old?: JsonObject): string[] | null {
  const stored = old ? (asArray(asObject(old.status)?.storedVersions)?.map(String) ?? null) : null;
  const storage = view.versions.find((v) => v.storage);
  if (storage && !(stored ?? []).includes(storage.name)) return [...(stored ?? []), storage.name];
  return stored;
}
