// How the Endpoints and EndpointSlice controllers' share of the change stream reaches their queues
// (the service and pod event handlers both controllers register): a Service by its key, a pod to
// every Service whose selector picks it before or after the change.
import type { Change, Storage } from '../../storage/storage.ts';
import type { WorkLoop } from '../work-loop.ts';
import { labelsOf, parseObject, parsedChange, type WorkloadObject } from '../workloads/common.ts';
import { managedSelector, POD_PREFIX, SERVICE_PREFIX } from './service-pods.ts';
import type { TriggerTimeTracker } from './trigger-time.ts';

export class ServiceRouting {
  constructor(
    private readonly storage: Storage,
    private readonly loop: WorkLoop,
    private readonly triggerTimes: TriggerTimeTracker,
    /** Whether a deleted Service is synced once more (to delete what was written for it). */
    private readonly syncDeleted: boolean,
  ) {}

  /** Every stored Service. */
  enqueueAll(): void {
    for (const s of this.storage.list(SERVICE_PREFIX)) this.loop.add(s.key.slice(SERVICE_PREFIX.length));
  }

  /** Routes a Service's or a pod's change; false for anything else. */
  observe(c: Change): boolean {
    if (c.key.startsWith(SERVICE_PREFIX)) {
      const key = c.key.slice(SERVICE_PREFIX.length);
      if (c.type === 'DELETED') this.triggerTimes.forget(key);
      if (c.type !== 'DELETED' || this.syncDeleted) this.loop.add(key);
      return true;
    }
    if (!c.key.startsWith(POD_PREFIX)) return false;
    const ns = c.key.slice(POD_PREFIX.length).split('/')[0];
    const services = this.storage.list(`${SERVICE_PREFIX}${ns}/`);
    // Most pod writes are in namespaces without Services: nothing to parse then.
    if (services.length === 0) return true;
    const { prev, next } = parsedChange(c);
    for (const key of this.servicesSelecting(ns, services, [prev, next])) this.loop.add(key);
    return true;
  }

  /** The Services of a namespace whose selector picks one of `pods`. */
  private servicesSelecting(
    namespace: string,
    services: Array<{ json: string }>,
    pods: Array<WorkloadObject | undefined>,
  ): string[] {
    const keys: string[] = [];
    const labelSets = pods.filter((p): p is WorkloadObject => p !== undefined).map(labelsOf);
    if (labelSets.length === 0) return keys;
    for (const s of services) {
      const svc = parseObject(s.json);
      const selector = svc && managedSelector(svc);
      if (selector && labelSets.some((l) => selector.matches(l))) keys.push(`${namespace}/${svc.metadata.name}`);
    }
    return keys;
  }
}
