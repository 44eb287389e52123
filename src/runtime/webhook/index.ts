export { WebhookServer } from './server.ts';
export type { WebhookServerOptions } from './server.ts';
export {
  AdmissionDenied,
  allowed,
  denied,
  errored,
  jsonPatchOps,
  mutatingHandler,
  patched,
  validatingHandler,
} from './admission.ts';
export type { AdmissionHandler, AdmissionResult } from './admission.ts';
export { ConversionError, ConversionScheme, ConversionWebhook, conversionWebhook } from './conversion.ts';
export type { Convertible, VersionKind } from './conversion.ts';
export { CertWatcher } from './cert-watcher.ts';
export type { CertWatcherOptions, KeyPair } from './cert-watcher.ts';
export type {
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionStatus,
  ConversionRequest,
  ConversionResponse,
  ConversionReview,
  GroupVersionKind,
  GroupVersionResource,
  Operation,
} from './types.ts';
