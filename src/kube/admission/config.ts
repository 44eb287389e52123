// Reads webhook configurations out of storage, in the order kube-apiserver calls them: sorted by
// configuration name, then in the order of the `webhooks` list. The parsed list is cached until
// a write under the admissionregistration prefix (storage watches fire synchronously, so a
// configuration is in effect for the very next request).
import { isObject } from '../../apimachinery/json/index.ts';
import type { JsonObject, JsonValue } from '../../apimachinery/meta/index.ts';
import type { Storage, Watcher } from '../storage/storage.ts';
import type { LabelSelector } from '../../apimachinery/selectors/label.ts';
import type { ClientConfig, RuleWithOperations, Webhook } from './types.ts';

const PREFIX = '/admissionregistration.k8s.io/';
const MUTATING = `${PREFIX}mutatingwebhookconfigurations/`;
const VALIDATING = `${PREFIX}validatingwebhookconfigurations/`;
const MAX_TIMEOUT_SECONDS = 30;

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

function parseRule(r: JsonObject): RuleWithOperations {
  return {
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === 'string' ? r.scope : '*',
  };
}

/** A webhook clientConfig (admissionregistration's, or a CRD's conversion webhook's: the same shape). */
export function parseClientConfig(cc: JsonObject): ClientConfig {
  const out: ClientConfig = {};
  if (typeof cc.url === 'string') out.url = cc.url;
  if (isObject(cc.service)) {
    const s = cc.service;
    out.service = {
      namespace: String(s.namespace ?? ''),
      name: String(s.name ?? ''),
      port: typeof s.port === 'number' ? s.port : 443,
      ...(typeof s.path === 'string' ? { path: s.path } : {}),
    };
  }
  if (typeof cc.caBundle === 'string' && cc.caBundle !== '') {
    out.caPem = Buffer.from(cc.caBundle, 'base64').toString('utf8');
  }
  return out;
}

function parseWebhook(h: JsonObject, configuration: string, mutating: boolean): Webhook {
  const timeout = typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10;
  return {
    name: String(h.name ?? ''),
    configuration,
    mutating,
    clientConfig: parseClientConfig(isObject(h.clientConfig) ? h.clientConfig : {}),
    rules: (Array.isArray(h.rules) ? h.rules : []).filter(isObject).map(parseRule),
    failurePolicy: h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: typeof h.matchPolicy === 'string' ? h.matchPolicy : 'Equivalent',
    // An unset selector is defaulted to `{}` (everything), not read as null (nothing).
    namespaceSelector: (isObject(h.namespaceSelector) ? h.namespaceSelector : {}) as LabelSelector,
    objectSelector: (isObject(h.objectSelector) ? h.objectSelector : {}) as LabelSelector,
    ...(typeof h.sideEffects === 'string' ? { sideEffects: h.sideEffects } : {}),
    timeoutSeconds: Math.min(Math.max(timeout, 1), MAX_TIMEOUT_SECONDS),
    admissionReviewVersions: strings(h.admissionReviewVersions),
    reinvocationPolicy: mutating && h.reinvocationPolicy === 'IfNeeded' ? 'IfNeeded' : 'Never',
  };
}

function readAll(storage: Storage, prefix: string, mutating: boolean): Webhook[] {
  // Storage lists in key order, which is configuration-name order.
  const out: Webhook[] = [];
  for (const stored of storage.list(prefix)) {
    const obj = JSON.parse(stored.json) as JsonObject;
    const name = isObject(obj.metadata) ? String(obj.metadata.name ?? '') : '';
    for (const h of Array.isArray(obj.webhooks) ? obj.webhooks : []) {
      if (isObject(h)) out.push(parseWebhook(h, name, mutating));
    }
  }
  return out;
}

export class WebhookConfigCache {
  private readonly storage: Storage;
  private cached: { mutating: Webhook[]; validating: Webhook[] } | undefined;
  private watcher: Watcher | undefined;

  constructor(storage: Storage) {
    this.storage = storage;
  }

  mutating(): Webhook[] {
    return this.load().mutating;
  }

  validating(): Webhook[] {
    return this.load().validating;
  }

  stop(): void {
    this.watcher?.stop();
    this.watcher = undefined;
    this.cached = undefined;
  }

  private load(): { mutating: Webhook[]; validating: Webhook[] } {
    if (!this.watcher) {
      this.watcher = this.storage.watch(PREFIX, this.storage.currentRevision(), () => {
        this.cached = undefined;
      });
    }
    this.cached ??= {
      mutating: readAll(this.storage, MUTATING, true),
      validating: readAll(this.storage, VALIDATING, false),
    };
    return this.cached;
  }
}
