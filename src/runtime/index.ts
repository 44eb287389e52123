// peerpods/runtime: an operator runtime modelled on controller-runtime. One import for everything:
// the client, the informer cache, the work queue, the controller builder, the manager (leader
// election, metrics, probes, graceful shutdown), admission and conversion webhooks, events and
// helpers.
export * from './client/index.ts';
export { eventRecorderRules, leaderElectionRules } from './client/rbac.ts';
export type { ComponentRules, PolicyRule } from './client/rbac.ts';
export * from './cache/index.ts';
export * from './queue/index.ts';
export * from './controller/index.ts';
export * from './manager/index.ts';
export * from './webhook/index.ts';
export * from './events/index.ts';
export * from './helpers/index.ts';
export * from './crd/index.ts';
export * from './handlers/index.ts';
export { realClock, FakeClock } from './util/clock.ts';
export type { Clock, TimerHandle } from './util/clock.ts';
export { Backoff } from '../apimachinery/backoff.ts';
export type { BackoffOptions } from '../apimachinery/backoff.ts';
export { createLogger, silentLogger } from './util/logger.ts';
export type { Logger } from './util/logger.ts';
