// peerpods/peerpod's defaults as the CLI's flags show them: a second public entry, light on
// purpose, so `peerpods --help` does not load the controllers, the webhook and the providers.
// index.ts exports the same values (the providers' under `providers`).
export {
  DEFAULT_MAX_CONCURRENT_DELETES,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  LEADER_ELECTION_ID,
} from './controllers/peerpod/options.ts';
export {
  DEFAULT_ADAPTOR_IMAGE,
  DEFAULT_CAPACITY_RECHECK_MS,
  DEFAULT_WEBHOOK_IMAGE,
} from './controllers/peerpodconfig/options.ts';
export { KNOWN_PROVIDERS, isKnownProvider } from './providers/registry.ts';
export * as webhook from './webhook/defaults.ts';
export * as adaptor from './adaptor/defaults.ts';
