// Several providers in one cluster (CAA#2219, #2382): each PeerPodConfig binds one provider to one
// RuntimeClass and one node resource. A config naming neither gets the defaults (kata-remote,
// kata.peerpods.io/vm), so today's single-provider config, and every object it deploys, is unchanged.
// What the bindings decide: which config wins a contested RuntimeClass or resource (the oldest), what
// the node claim annotation and the adaptor DaemonSet of each are called, and which config of a
// namespace deploys the one webhook (and with which RuntimeClass → resource routes).
import { createHash } from 'node:crypto';
import type { PeerPodConfig } from '../../api/peerpodconfig.ts';
import { OWNER_ANNOTATION } from './nodes.ts';

export interface ProviderBinding {
  runtimeClassName: string;
  extendedResource: string;
}

export type BindingDefaults = ProviderBinding;

export function bindingOf(cfg: PeerPodConfig, d: BindingDefaults): ProviderBinding {
  return {
    runtimeClassName: cfg.spec.runtimeClassName || d.runtimeClassName,
    extendedResource: cfg.spec.extendedResource || d.extendedResource,
  };
}

/**
 * The node annotation recording which config advertises `resource` there: upstream-era name for the
 * default resource, one key per other resource, so configs of several providers share a node.
 */
export function claimAnnotation(resource: string, d: BindingDefaults): string {
  if (resource === d.extendedResource) return OWNER_ANNOTATION;
  const [prefix] = OWNER_ANNOTATION.split('/');
  // An annotation's name part holds at most 63 characters: a long resource name is hashed.
  const name = `owner.${resource.replace('/', '_')}`;
  const short = name.length <= 63 ? name : `owner.${createHash('sha256').update(resource).digest('hex').slice(0, 16)}`;
  return `${prefix}/${short}`;
}

function key(c: PeerPodConfig): string {
  return `${c.metadata.namespace}/${c.metadata.name}`;
}

/** Oldest first (creation time, then namespace/name): the order in which claims are granted. */
function byAge(a: PeerPodConfig, b: PeerPodConfig): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

export interface Conflict {
  reason: 'RuntimeClassConflict' | 'ExtendedResourceConflict';
  message: string;
}

/**
 * Claims are granted oldest first; a config is refused when an already granted one holds its
 * RuntimeClass or its resource (a refused config blocks nobody).
 */
function decide(all: readonly PeerPodConfig[], d: BindingDefaults): Map<string, Conflict | undefined> {
  const out = new Map<string, Conflict | undefined>();
  const granted: Array<{ key: string; b: ProviderBinding }> = [];
  for (const c of [...all].sort(byAge)) {
    const mine = bindingOf(c, d);
    const rc = granted.find((g) => g.b.runtimeClassName === mine.runtimeClassName);
    const res = granted.find((g) => g.b.extendedResource === mine.extendedResource);
    if (rc) {
      out.set(key(c), {
        reason: 'RuntimeClassConflict',
        message: `RuntimeClass ${mine.runtimeClassName} is already bound by PeerPodConfig ${rc.key}`,
      });
    } else if (res) {
      out.set(key(c), {
        reason: 'ExtendedResourceConflict',
        message: `extended resource ${mine.extendedResource} is already advertised by PeerPodConfig ${res.key}`,
      });
    } else {
      out.set(key(c), undefined);
      granted.push({ key: key(c), b: mine });
    }
  }
  return out;
}

/** Why `cfg` is refused, if it is (`all` includes it or not). */
export function conflictOf(
  cfg: PeerPodConfig,
  all: readonly PeerPodConfig[],
  d: BindingDefaults,
): Conflict | undefined {
  const others = all.filter((c) => key(c) !== key(cfg));
  return decide([...others, cfg], d).get(key(cfg));
}

/** The configs of `all` that are not refused, oldest first. */
export function grantedConfigs(all: readonly PeerPodConfig[], d: BindingDefaults): PeerPodConfig[] {
  const decided = decide(all, d);
  return [...all].sort(byAge).filter((c) => !decided.get(key(c)));
}

/**
 * The config of `namespace` that deploys its webhook: the oldest granted one, so adding a provider
 * never moves the webhook objects (they carry their deployer's owner reference); the others'
 * bindings reach it as routes. When the deployer goes, the garbage collector takes its objects and
 * the next oldest makes them again.
 */
export function webhookDeployer(
  namespace: string,
  all: readonly PeerPodConfig[],
  d: BindingDefaults,
): PeerPodConfig | undefined {
  return grantedConfigs(
    all.filter((c) => c.metadata.namespace === namespace),
    d,
  )[0];
}

/** The RuntimeClass → resource routes a namespace's webhook adds to (or puts over) its default one, sorted. */
export function webhookRoutes(namespace: string, all: readonly PeerPodConfig[], d: BindingDefaults): ProviderBinding[] {
  return grantedConfigs(
    all.filter((c) => c.metadata.namespace === namespace),
    d,
  )
    .map((c) => bindingOf(c, d))
    .filter((b) => b.runtimeClassName !== d.runtimeClassName || b.extendedResource !== d.extendedResource)
    .sort((a, b) => (a.runtimeClassName < b.runtimeClassName ? -1 : 1));
}
