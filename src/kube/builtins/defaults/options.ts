// Context that a few built-in mutations need beyond the object itself: the stored object on
// update, PriorityClass lookups for the Priority admission plugin, and a clock.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';

export interface PriorityClassInfo {
  name: string;
  value: number;
  preemptionPolicy?: string;
}

export interface DefaultsOptions {
  /** The stored object, for update-time carry-overs (Pod priority and preemptionPolicy). */
  old?: JsonObject;
  /**
   * Resolves a PriorityClass by name. Without it only the two system classes are known and a
   * pod naming any other class is left without a priority instead of being refused.
   */
  priorityClass?: (name: string) => PriorityClassInfo | undefined;
  /** The PriorityClass marked globalDefault, if any. */
  defaultPriorityClass?: () => PriorityClassInfo | undefined;
  now?: () => Date;
  /** DefaultTolerationSeconds: --default-not-ready-toleration-seconds. Default 300. */
  defaultNotReadyTolerationSeconds?: number;
  /** DefaultTolerationSeconds: --default-unreachable-toleration-seconds. Default 300. */
  defaultUnreachableTolerationSeconds?: number;
  /** Family of the Service CIDR (the cluster is single-stack); IPv4 unless told otherwise. */
  serviceIpFamily?: 'IPv4' | 'IPv6';
}

export const SYSTEM_PRIORITY_CLASSES: Record<string, PriorityClassInfo> = {
  'system-node-critical': { name: 'system-node-critical', value: 2000001000, preemptionPolicy: 'PreemptLowerPriority' },
  'system-cluster-critical': {
    name: 'system-cluster-critical',
    value: 2000000000,
    preemptionPolicy: 'PreemptLowerPriority',
  },
};
