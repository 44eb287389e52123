// The set of resources the server currently serves. Built-ins are fixed; custom resources come
// and go with their CRDs, and every change is announced so discovery and OpenAPI stay current.
import { apiVersionOf, type ResourceDef } from './resource.ts';

export class ResourceCatalog {
  private readonly defs = new Map<string, ResourceDef>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  add(def: ResourceDef): void {
    this.defs.set(key(def.group, def.version, def.resource), def);
    this.changed();
  }

  remove(group: string, version: string, resource: string): void {
    if (this.defs.delete(key(group, version, resource))) this.changed();
  }

  lookup(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.defs.get(key(group, version, resource));
  }

  all(): ResourceDef[] {
    return [...this.defs.values()];
  }

  /** Every served version of a group, in the order they were added (preferred first). */
  versionsOf(group: string): string[] {
    const out: string[] = [];
    for (const d of this.defs.values()) if (d.group === group && !out.includes(d.version)) out.push(d.version);
    return out;
  }

  groupVersions(): Array<{ group: string; versions: string[] }> {
    const groups = new Map<string, string[]>();
    for (const d of this.defs.values()) {
      const vs = groups.get(d.group) ?? [];
      if (!vs.includes(d.version)) vs.push(d.version);
      groups.set(d.group, vs);
    }
    return [...groups.entries()].map(([group, versions]) => ({ group, versions }));
  }

  inGroupVersion(group: string, version: string): ResourceDef[] {
    return this.all().filter((d) => d.group === group && d.version === version);
  }

  /** Resolves an ownerReference-style apiVersion + kind. */
  byKind(apiVersion: string, kind: string): ResourceDef | undefined {
    for (const d of this.defs.values()) if (d.kind === kind && apiVersionOf(d) === apiVersion && !d.storageOf) return d;
    return undefined;
  }

  /** A counter that moves on every change; caches of derived documents key on it. */
  version(): number {
    return this.generation;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.generation++;
    for (const l of this.listeners) l();
  }
}

function key(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}
