// Fault injection on the API server's request paths (ControlPlane.faults).
export { FaultInjector, type FaultHandle, type Faults } from './injector.ts';
export type { FaultAction, FaultMatch, FaultRule } from './rules.ts';
