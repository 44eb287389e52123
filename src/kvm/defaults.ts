// peerpods/kvm's defaults as the CLI's flags show them: a second public entry, light on purpose,
// so `peerpods --help` does not load the operator. index.ts exports the same values.
export { KVM_DEFAULTS } from './options.ts';
export { KVM_LEADER_ELECTION_ID } from './controllers/names.ts';
