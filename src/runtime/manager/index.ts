export { Manager } from './manager.ts';
export type { ManagerInit } from './manager.ts';
export { resolveManagerOptions } from './options.ts';
export type {
  ControllerDefaults,
  ManagerLeaderElectionOptions,
  ManagerOptions,
  ProbeServerAddress,
  ResolvedManagerOptions,
} from './options.ts';
export { LeaderElector } from './leader-election.ts';
export type { Lease, LeaseClient, LeaseSpec, LeaderCallbacks, LeaderElectionOptions } from './leader-election.ts';
export { StopRequest, graceOf, runnableFunc } from './runnable.ts';
export type { Runnable } from './runnable.ts';
export { HealthChecks } from './health.ts';
export type { Checker, CheckResult } from './health.ts';
export { ProbeServer } from './http-server.ts';
export { formatMicroTime, parseMicroTime } from '../../apimachinery/time/index.ts';
