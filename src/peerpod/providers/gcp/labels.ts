// Tags on GCP instances. Upstream binds TAGS as Resource Manager secure tags, which need the
// @google-cloud/resource-manager client and tags pre-created in the project; this port uses
// instance labels instead, which the compute API can filter on. Labels only allow [a-z0-9_-] up to
// 63 characters, so each tag is stored twice: as a sanitised label (server-side filter, may
// collide) and exactly, as JSON in the instance metadata item TAGS_METADATA_KEY (what list
// returns and matches on).
import { createHash } from 'node:crypto';

export const TAGS_METADATA_KEY = 'peerpods-tags';
const MAX = 63;

function clean(s: string): string {
  let out = '';
  for (const c of s.toLowerCase()) out += /^[a-z0-9_-]$/.test(c) ? c : '_';
  if (out.length <= MAX) return out;
  // Long values keep a hash of the whole, so two long tags rarely share a label.
  const hash = createHash('sha256').update(s).digest('hex').slice(0, 8);
  return `${out.slice(0, MAX - 9)}-${hash}`;
}

export function labelKey(key: string): string {
  const k = clean(key);
  return /^[a-z]/.test(k) ? k : clean(`k${key}`);
}

export function labelValue(value: string): string {
  return clean(value);
}

export function toLabels(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).map(([k, v]) => [labelKey(k), labelValue(v)]));
}

/** Compute API list filter: every label must match (space-separated expressions are ANDed). */
export function labelFilter(tags: Record<string, string>): string {
  return Object.entries(toLabels(tags))
    .map(([k, v]) => `(labels.${k} = "${v}")`)
    .join(' ');
}
