// What part of a kind an informer caches. One shared informer exists per kind and scope.
import { resourceKey } from '../client/resources.ts';
import type { ResourceType } from '../client/types.ts';

export interface Scope {
  /** Only this namespace (namespaced kinds). Undefined: all namespaces. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** Canonical text of a scope: "" for everything, else e.g. "namespace=a,labels=app=x". */
export function describeScope(scope: Scope | undefined): string {
  if (!scope) return '';
  const parts: string[] = [];
  if (scope.namespace) parts.push(`namespace=${scope.namespace}`);
  if (scope.labelSelector) parts.push(`labels=${scope.labelSelector}`);
  if (scope.fieldSelector) parts.push(`fields=${scope.fieldSelector}`);
  return parts.join(',');
}

export function normalizeScope(type: ResourceType, scope: Scope | undefined): Scope {
  const out: Scope = {};
  if (type.namespaced && scope?.namespace) out.namespace = scope.namespace;
  if (scope?.labelSelector?.trim()) out.labelSelector = scope.labelSelector.trim();
  if (scope?.fieldSelector?.trim()) out.fieldSelector = scope.fieldSelector.trim();
  return out;
}

export function informerKey(type: ResourceType, scope: Scope): string {
  return `${resourceKey(type)}|${describeScope(scope)}`;
}

/** A scope with no namespace and no selectors covers every object of its kind. */
export function isClusterWide(scope: Scope): boolean {
  return !scope.namespace && !scope.labelSelector && !scope.fieldSelector;
}
