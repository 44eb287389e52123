// peerpods' API machinery: the Kubernetes basics every part shares. Imports nothing else of the project.

// Time formats, durations, backoff, events, certificates, pod and node helpers.
export * from './time/index.ts';
export { Backoff, ItemExponentialBackoff, exponentialDelay } from './backoff.ts';
export type { BackoffOptions, PassiveClock } from './backoff.ts';
export { seededRandom } from './random.ts';
export * from './events/index.ts';
export * from './certs/index.ts';
export * from './core/index.ts';

// Meta types, Status errors, JSON helpers, quantities, selectors, names and field errors, Go strings.
export * from './meta/index.ts';
export * from './errors/index.ts';
export * from './json/index.ts';
export * from './quantity/index.ts';
export * from './selectors/index.ts';
export * from './validation/index.ts';
export * from './strings/index.ts';

// The CRD schema DSL (`s`, Schema, Static).
export * from './schema/index.ts';
