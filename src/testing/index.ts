// peerpods/testing: an embedded cluster for operator tests (envtest done right), usable under
// node's test runner and vitest.
export { startTestEnv } from './env.ts';
export type { TestEnv, TestEnvOptions } from './env.ts';
export type { ManifestSource } from './manifests.ts';
export type { WaitOptions } from './wait.ts';
export type { WebhookInstallOptions, WebhookServing } from './webhooks.ts';
