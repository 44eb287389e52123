// ResourceDefs for a CRD's served versions, with the CRD's structural schema as the strategy.
import { compileCrdVersion } from '../crd/index.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import { ALL_VERBS, type CustomResourceConverter, type ResourceDef } from './resource.ts';

/** Builds the conversion webhook of a CRD that asks for one (crd/conversion); undefined for strategy None. */
export type ConverterFactory = (crd: JsonObject) => CustomResourceConverter | undefined;

export function customResourceDefs(crd: JsonObject, converterFor?: ConverterFactory): ResourceDef[] {
  const spec = crd.spec as JsonObject;
  const names = spec.names as JsonObject;
  const group = String(spec.group);
  const kind = String(names.kind);
  const versions = (spec.versions as JsonObject[]) ?? [];
  const storageVersion = String(versions.find((v) => v.storage === true)?.name ?? versions[0]?.name);
  const converter = converterFor?.(crd);
  const defs: ResourceDef[] = [];
  // The storage version first: discovery lists it as the preferred version.
  const ordered = [...versions].sort((a, b) => Number(b.storage === true) - Number(a.storage === true));
  for (const v of ordered) {
    if (v.served === false) continue;
    const version = String(v.name);
    const compiled = compileCrdVersion(crd, version);
    const subresources: string[] = [];
    if (compiled.hasStatus) subresources.push('status');
    if (compiled.scale) subresources.push('scale');
    defs.push({
      group,
      version,
      resource: String(names.plural),
      kind,
      listKind: String(names.listKind ?? `${kind}List`),
      singular: String(names.singular ?? kind.toLowerCase()),
      namespaced: spec.scope !== 'Cluster',
      shortNames: (names.shortNames as string[] | undefined) ?? undefined,
      categories: (names.categories as string[] | undefined) ?? undefined,
      verbs: ALL_VERBS,
      subresources,
      builtin: false,
      hasGeneration: true,
      allowUnconditionalUpdate: false,
      strategy: {
        applyDefaults: (obj) => compiled.applyDefaults(obj),
        prune: (obj) => compiled.prune(obj),
        validate: (obj, old) => compiled.validate(obj, old),
        schemaInfo: compiled.schemaInfo,
      },
      printerColumns: compiled.printerColumns,
      scale: compiled.scale,
      storageVersion,
      ...(converter ? { converter } : {}),
    });
  }
  return defs;
}

/** Convenience for callers that only have the parsed CRD object. */
export function crdName(crd: JsonObject): string {
  return String((crd.metadata as JsonObject).name);
}
