// The webhook configuration fields the dispatcher acts on, read from stored
// Mutating/ValidatingWebhookConfiguration objects with the v1 defaults filled in (objects written
// through the API are defaulted already; ones put straight into storage may not be).
import type { LabelSelector } from '../../apimachinery/selectors/label.ts';

export type FailurePolicy = 'Fail' | 'Ignore';

export interface RuleWithOperations {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  /** Namespaced, Cluster or `*`. */
  scope: string;
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port: number;
}

export interface ClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM bundle (decoded from base64); undefined means the system roots. */
  caPem?: string;
}

export interface Webhook {
  /** Webhook name (`x.example.com`), the one error messages quote. */
  name: string;
  /** Name of the configuration object holding it. */
  configuration: string;
  mutating: boolean;
  clientConfig: ClientConfig;
  rules: RuleWithOperations[];
  failurePolicy: FailurePolicy;
  matchPolicy: string;
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  sideEffects?: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: 'Never' | 'IfNeeded';
}

/** Where a `clientConfig.service` is served: a local address the dispatcher dials. */
export interface ServiceAddress {
  host: string;
  port: number;
}

/**
 * Maps a Service reference to an address. Throwing (or rejecting) fails the call, which the
 * webhook's failurePolicy then decides on.
 */
export type ServiceResolver = (
  namespace: string,
  name: string,
  port: number,
) => ServiceAddress | Promise<ServiceAddress>;
