// One container of a process pod: its status record, the process of its current instance, the
// captured output of its current and previous instances, and its prober. A container whose image
// is not a process image stays simulated: it is `running` from the moment the pod's containers
// start until the pod stops.
import type { JsonObject } from '../../../apimachinery/meta/index.ts';
import type { ContainerLog } from './container-log.ts';
import type { ProcessGroup } from './process-group.ts';
import type { ContainerProber } from './prober.ts';
import type { ContainerRecord } from './pod-status.ts';

export class ContainerRun {
  readonly record: ContainerRecord;
  group?: ProcessGroup;
  prober?: ContainerProber;
  /** The environment and working directory of the current instance (exec and exec probes use them). */
  env?: Record<string, string>;
  cwd?: string;
  /** Captured output by containerID: the current instance and the one before it. */
  readonly logs = new Map<string, ContainerLog>();
  /** Instances started so far. */
  instances = 0;

  constructor(
    readonly spec: JsonObject,
    kind: ContainerRecord['kind'],
    readonly process: boolean,
    waitingReason: string,
  ) {
    this.record = {
      name: String(spec.name),
      kind,
      image: String(spec.image ?? ''),
      state: { waiting: { reason: waitingReason } },
      lastState: {},
      restartCount: 0,
      ready: false,
      started: false,
    };
  }

  get name(): string {
    return this.record.name;
  }

  get running(): boolean {
    return 'running' in this.record.state;
  }

  /** Keeps the new instance's log and the one before it. */
  addLog(containerID: string, log: ContainerLog): void {
    this.logs.set(containerID, log);
    while (this.logs.size > 2) this.logs.delete(this.logs.keys().next().value as string);
  }

  /** The simulated container's instance: running until the pod stops. */
  startSimulated(containerID: string, now: string): void {
    Object.assign(this.record, { containerID, state: { running: { startedAt: now } }, ready: true, started: true });
  }
}
