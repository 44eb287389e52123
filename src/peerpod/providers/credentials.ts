// Provider settings from ConfigMap `peer-pods-cm` and Secret `peer-pods-secret` in
// $PEERPODS_NAMESPACE, read from namespace- and name-scoped informers so every change is seen (upstream
// reads them once, at the first reconcile, and never again).
//
// Upstream copies every key into the environment, so all providers share one flat map (#2382). We
// keep that map, and let a key prefixed with `<provider>.` override the plain key for that provider
// only, so several providers in one cluster can use different values of the same setting, e.g.
// `libvirt.LIBVIRT_URI`. Secret keys win over ConfigMap keys, as upstream's `envFrom` order does.
// The adaptor and the PeerPod controller both read their providers' settings through this module.
import { isKnownProvider } from './registry.ts';
import type { InformerScope, KubeObject, PolicyRule, SharedInformer } from '../../runtime/index.ts';

export interface DataObject extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export interface CredentialSource {
  /** The flat settings for `provider` (prefixed keys applied, prefixes of other providers dropped). */
  configFor(provider: string): Readonly<Record<string, string>>;
  /** Whether either object exists (upstream's "both missing" error). */
  found(): { configMap: boolean; secret: boolean };
  /**
   * The providers these settings configure: CLOUD_PROVIDER (comma-separated) and every known provider
   * with `<provider>.KEY` settings of its own (one of several providers in the cluster), sorted.
   */
  configuredProviders(): string[];
}

export interface CredentialInformers {
  configMaps: SharedInformer<DataObject>;
  secrets: SharedInformer<DataObject>;
}

export function nameScope(namespace: string, name: string): InformerScope {
  // A field selector on the name lets RBAC restrict list/watch with resourceNames to this one object.
  return { namespace, fieldSelector: `metadata.name=${name}` };
}

/**
 * What reading the settings takes (a Role in their namespace): list and watch of the two objects,
 * by name (the informers' `metadata.name` field selector makes RBAC check the name); no `get`, the
 * informers' caches answer every read.
 */
export function credentialRules(names: { configMap: string; secret: string }): PolicyRule[] {
  return [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch'], resourceNames: [names.configMap] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'], resourceNames: [names.secret] },
  ];
}

export class InformerCredentials implements CredentialSource {
  /**
   * The settings as last read, per provider: every reconcile asks (a VM's create, a warm claim), and
   * the informers replace an object on each change, so the same two objects mean the same settings.
   */
  private read?: {
    configMap: DataObject | undefined;
    secret: DataObject | undefined;
    flat: Record<string, string>;
    scoped: Map<string, Readonly<Record<string, string>>>;
  };

  constructor(
    private readonly informers: CredentialInformers,
    private readonly namespace: string,
    private readonly names: { configMap: string; secret: string },
  ) {}

  found(): { configMap: boolean; secret: boolean } {
    return { configMap: this.configMap() !== undefined, secret: this.secret() !== undefined };
  }

  configFor(provider: string): Readonly<Record<string, string>> {
    const read = this.current();
    let scoped = read.scoped.get(provider);
    if (!scoped) {
      scoped = Object.freeze(scopeToProvider(read.flat, provider));
      read.scoped.set(provider, scoped);
    }
    return scoped;
  }

  configuredProviders(): string[] {
    return providersIn(this.current().flat);
  }

  private current(): NonNullable<InformerCredentials['read']> {
    const configMap = this.configMap();
    const secret = this.secret();
    if (!this.read || this.read.configMap !== configMap || this.read.secret !== secret) {
      this.read = { configMap, secret, flat: flatSettings(configMap, secret), scoped: new Map() };
    }
    return this.read;
  }

  private configMap(): DataObject | undefined {
    return this.informers.configMaps.get(this.namespace, this.names.configMap);
  }

  private secret(): DataObject | undefined {
    return this.informers.secrets.get(this.namespace, this.names.secret);
  }
}

/** The ConfigMap's keys, overridden by the Secret's (decoded), as upstream's `envFrom` order. */
export function flatSettings(
  configMap: DataObject | undefined,
  secret: DataObject | undefined,
): Record<string, string> {
  const flat: Record<string, string> = { ...configMap?.data };
  for (const [k, v] of Object.entries(secret?.data ?? {})) flat[k] = Buffer.from(v, 'base64').toString('utf8');
  for (const [k, v] of Object.entries(secret?.stringData ?? {})) flat[k] = v;
  return flat;
}

export function providersIn(flat: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const p of (flat.CLOUD_PROVIDER ?? '').split(',')) if (p.trim()) names.add(p.trim());
  for (const k of Object.keys(flat)) {
    const dot = k.indexOf('.');
    if (dot > 0 && isKnownProvider(k.slice(0, dot))) names.add(k.slice(0, dot));
  }
  return [...names].sort();
}

/** Plain keys, overridden by `<provider>.KEY`; keys prefixed for other providers are dropped. */
export function scopeToProvider(flat: Record<string, string>, provider: string): Record<string, string> {
  const out: Record<string, string> = {};
  const own: Record<string, string> = {};
  for (const [k, v] of Object.entries(flat)) {
    const dot = k.indexOf('.');
    if (dot < 0) out[k] = v;
    else if (k.slice(0, dot) === provider) own[k.slice(dot + 1)] = v;
  }
  return { ...out, ...own };
}
