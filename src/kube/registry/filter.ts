// Label and field selectors of a LIST or WATCH, matched against stored objects. Objects are
// parsed only when a selector needs more than the name and namespace held in the key, and then once
// for all watchers: as kube's watch cache computes each event's labels and fields once
// (watchCacheEvent.ObjLabels/ObjFields), the attributes of the last few texts are kept, since every
// watcher of a resource matches the same change in turn. Parsed per watcher, a pod change cost 200
// parses with one node-scoped watch per node on 100 nodes.
import { parseLabelSelector, type LabelMatcher } from '../../apimachinery/selectors/label.ts';
import {
  convertFieldSelector,
  fieldSet,
  parseFieldSelector,
  type FieldMatcher,
} from '../../apimachinery/selectors/field.ts';
import type { StoredObject } from '../storage/storage.ts';
import type { JsonObject } from '../../apimachinery/meta/index.ts';
import type { ResourceDef } from './resource.ts';

export class ObjectFilter {
  private constructor(
    private readonly labels: LabelMatcher | undefined,
    private readonly fields: FieldMatcher | undefined,
    private readonly needsObject: boolean,
  ) {}

  static everything(): ObjectFilter {
    return new ObjectFilter(undefined, undefined, false);
  }

  static parse(def: ResourceDef, labelSelector?: string, fieldSelector?: string): ObjectFilter {
    const labels = labelSelector ? parseLabelSelector(labelSelector) : undefined;
    let fields: FieldMatcher | undefined;
    let needsObject = !!labels && !labels.empty;
    if (fieldSelector) {
      const group = def.storageOf?.group ?? def.group;
      const resource = def.storageOf?.resource ?? def.resource;
      fields = convertFieldSelector(
        parseFieldSelector(fieldSelector),
        group,
        resource,
        def.builtin ? {} : { custom: { namespaced: def.namespaced } },
      );
      for (const field of fields.fieldNames()) {
        if (field !== 'metadata.name' && field !== 'metadata.namespace') needsObject = true;
      }
      if (fields.empty) fields = undefined;
    }
    if (labels?.empty) return new ObjectFilter(undefined, fields, needsObject);
    return new ObjectFilter(labels, fields, needsObject);
  }

  get isEverything(): boolean {
    return !this.labels && !this.fields;
  }

  matchesStored(def: ResourceDef, stored: StoredObject, where: { namespace?: string; name: string }): boolean {
    if (this.isEverything) return true;
    if (!this.needsObject && this.fields) {
      const flat: Record<string, string> = { 'metadata.name': where.name };
      if (def.namespaced) flat['metadata.namespace'] = where.namespace ?? '';
      return this.fields.matches(flat);
    }
    const a = attributesOf(def, stored.json);
    if (this.labels && !this.labels.matches(a.labels)) return false;
    return !this.fields || this.fields.matches(a.fields);
  }

  matches(def: ResourceDef, obj: JsonObject): boolean {
    if (this.labels) {
      const m = (obj.metadata ?? {}) as { labels?: Record<string, string> };
      if (!this.labels.matches(m.labels ?? {})) return false;
    }
    if (this.fields) {
      const flat = fieldSet(def.storageOf?.group ?? def.group, def.storageOf?.resource ?? def.resource, obj);
      if (!this.fields.matches(flat)) return false;
    }
    return true;
  }
}

interface Attributes {
  labels: Record<string, string>;
  fields: Record<string, string>;
}

/** A change's new and old texts, and a little room for a write that lands between two watchers. */
const RECENT = 4;
const recent: Array<{ def: ResourceDef; json: string; attributes: Attributes }> = [];

function attributesOf(def: ResourceDef, json: string): Attributes {
  for (const r of recent) if (r.json === json && r.def === def) return r.attributes;
  const obj = JSON.parse(json) as JsonObject;
  const labels = ((obj.metadata ?? {}) as { labels?: Record<string, string> }).labels ?? {};
  const fields = fieldSet(def.storageOf?.group ?? def.group, def.storageOf?.resource ?? def.resource, obj);
  recent.unshift({ def, json, attributes: { labels, fields } });
  if (recent.length > RECENT) recent.pop();
  return { labels, fields };
}
