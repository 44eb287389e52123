// The typed Pod helpers the drainer controller decides with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPodReady } from '../../../../src/apimachinery/index.ts';
import { Annotations } from '../../../../src/kvm/api/index.ts';
import {
  allContainersTerminated,
  endpointIpOf,
  isPodDrained,
  noContainerRunning,
  type ContainerState,
  type Pod,
} from '../../../../src/kvm/pods.ts';

const running: ContainerState = { running: {} };
const terminated: ContainerState = { terminated: { exitCode: 0 } };
const waiting: ContainerState = { waiting: { reason: 'CrashLoopBackOff' } };

function withStates(states: ContainerState[], init: ContainerState[] = []): Pod {
  return {
    metadata: { name: 'p' },
    status: {
      containerStatuses: states.map((state, i) => ({ name: `c${i}`, state })),
      initContainerStatuses: init.map((state, i) => ({ name: `i${i}`, state })),
    },
  };
}

describe('pod helpers: container states', () => {
  const cases = [
    { name: 'no statuses yet', pod: withStates([]), terminated: true, noneRunning: true },
    { name: 'all running', pod: withStates([running, running]), terminated: false, noneRunning: false },
    { name: 'one still running', pod: withStates([terminated, running]), terminated: false, noneRunning: false },
    { name: 'all terminated', pod: withStates([terminated, terminated]), terminated: true, noneRunning: true },
    { name: 'terminated and waiting', pod: withStates([terminated, waiting]), terminated: false, noneRunning: true },
    { name: 'a running init container', pod: withStates([waiting], [running]), terminated: false, noneRunning: false },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      assert.equal(allContainersTerminated(tc.pod), tc.terminated);
      assert.equal(noContainerRunning(tc.pod), tc.noneRunning);
    });
  }
});

describe('pod helpers: conditions and annotations', () => {
  const annotated = (a: Record<string, string>): Pod => ({ metadata: { name: 'p', annotations: a } });
  const ready = (status: 'True' | 'False'): Pod => ({
    metadata: { name: 'p' },
    status: { conditions: [{ type: 'Ready', status }] },
  });
  const cases: { name: string; got: () => unknown; want: unknown }[] = [
    { name: 'Ready=True is ready', got: () => isPodReady(ready('True')), want: true },
    { name: 'Ready=False is not', got: () => isPodReady(ready('False')), want: false },
    { name: 'no conditions is not ready', got: () => isPodReady({ metadata: {} }), want: false },
    {
      name: 'the initial empty IP annotation means no IP',
      got: () => endpointIpOf(annotated({ [Annotations.endpointIp]: '' })),
      want: undefined,
    },
    {
      name: 'a reported IP',
      got: () => endpointIpOf(annotated({ [Annotations.endpointIp]: '10.0.0.1' })),
      want: '10.0.0.1',
    },
    { name: 'drained "True"', got: () => isPodDrained(annotated({ [Annotations.drained]: 'True' })), want: true },
    {
      name: 'drained "1" (Go ParseBool)',
      got: () => isPodDrained(annotated({ [Annotations.drained]: '1' })),
      want: true,
    },
    { name: 'drained "False"', got: () => isPodDrained(annotated({ [Annotations.drained]: 'False' })), want: false },
    {
      name: 'drained "yes" is not a bool',
      got: () => isPodDrained(annotated({ [Annotations.drained]: 'yes' })),
      want: false,
    },
    { name: 'no annotation: not drained', got: () => isPodDrained({ metadata: {} }), want: false },
  ];
  for (const tc of cases) it(tc.name, () => assert.equal(tc.got(), tc.want));
});
