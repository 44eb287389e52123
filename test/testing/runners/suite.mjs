// The suite both runner checks run (vitest/env.spec.mjs, jest/env.test.mjs): peerpods/testing
// imported by package name, as an operator project would, with the runner's own test functions.
import { startTestEnv } from 'peerpods/testing';
import { ConfigMaps, Namespaces, Pods, customResource, setControllerReference } from 'peerpods/runtime';

const Widgets = customResource('testing.example.com', 'v1', 'Widget', 'widgets', true);
const CRDS = new URL('../fixtures/crd/bases', import.meta.url).pathname;

export function defineSuite({ describe, it, expect, beforeAll, afterAll }, runner) {
  describe(`peerpods/testing under ${runner}`, () => {
    let env;
    beforeAll(async () => {
      env = await startTestEnv({ crds: [CRDS], nodes: 1 });
    });
    afterAll(() => env?.stop());

    it('round-trips a custom resource', async () => {
      await env.client.create(Widgets, { metadata: { name: 'w', namespace: 'default' }, spec: { size: 2 } });
      const got = await env.client.get(Widgets, 'w', 'default');
      expect(got.spec).toEqual({ size: 2 });
    });

    it('garbage-collects the dependents of a deleted owner', async () => {
      const owner = await env.client.get(Widgets, 'w', 'default');
      const dependent = { metadata: { name: 'dep', namespace: 'default' } };
      setControllerReference(owner, dependent);
      await env.client.create(ConfigMaps, dependent);
      await env.client.delete(Widgets, 'w', 'default');
      await env.waitForDeletion(ConfigMaps, 'dep', 'default');
    });

    it('finishes deleting a namespace', async () => {
      await env.client.create(Namespaces, { metadata: { name: 'gone' } });
      await env.client.create(ConfigMaps, { metadata: { name: 'cm', namespace: 'gone' } });
      await env.client.delete(Namespaces, 'gone');
      await env.waitForDeletion(Namespaces, 'gone');
    });

    it('schedules a pod to the node', async () => {
      await env.client.create(Pods, {
        metadata: { name: 'p', namespace: 'default' },
        spec: { containers: [{ name: 'c', image: 'example.com/app:1' }] },
      });
      const pod = await env.waitForObject(Pods, 'p', 'default', (p) => p.status?.phase === 'Running');
      expect(pod.spec.nodeName).toBe('node-1');
    });
  });
}
