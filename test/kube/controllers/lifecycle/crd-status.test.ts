// The CRD controller writes a CRD's status only when it changes. Every deletion of a custom resource
// wakes it (a terminating CRD may now be empty), so a live CRD must come out of that with no write:
// the status it builds and the one the store decodes hold the same values in another key order.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { CrdController } from '../../../../src/kube/controllers/lifecycle/crd.ts';
import { customResourceDefinition } from '../../../../src/runtime/index.ts';
import type { ObjectStore } from '../../../../src/kube/registry/store/index.ts';
import type { JsonObject } from '../../../../src/apimachinery/meta/index.ts';
import { call } from '../../server/http.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A second controller over the cluster's store, whose updates are counted where they would write. */
class CountingCrdController extends CrdController {
  run(name: string): Promise<void> {
    return this.process(name);
  }
}

function countingStore(store: ObjectStore, writes: string[]): ObjectStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'updateWith') return Reflect.get(target, prop, receiver) as unknown;
      const updateWith: ObjectStore['updateWith'] = (def, ns, name, ctx, mutate, sub) =>
        target.updateWith(
          def,
          ns,
          name,
          ctx,
          (obj) => {
            const next = mutate(obj);
            if (next) writes.push(`${name}${sub ? `/${sub}` : ''}`);
            return next;
          },
          sub,
        );
      return updateWith;
    },
  });
}

describe('CRD status', () => {
  let cp: TestCluster;
  before(async () => {
    cp = await startTestCluster({ nodes: 0, scheduler: false });
  });
  after(() => cp.stop());

  test('an established CRD woken again is not written', async () => {
    const crd = customResourceDefinition({
      group: 'example.com',
      version: 'v1',
      scope: 'Namespaced',
      names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', shortNames: ['gd'] },
      openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    });
    const r = await call(cp, 'POST', CRDS, { body: crd });
    assert.equal(r.status, 201, r.body);
    await eventually(
      async () => {
        const o = JSON.parse((await call(cp, 'GET', `${CRDS}/gadgets.example.com`)).body) as JsonObject;
        const conditions = ((o.status as JsonObject | undefined)?.conditions ?? []) as JsonObject[];
        return conditions.some((c) => c.type === 'Established' && c.status === 'True');
      },
      { what: 'the CRD Established' },
    );
    const { storage, store, catalog } = cp.internals;
    const writes: string[] = [];
    const controller = new CountingCrdController(storage, countingStore(store, writes), catalog);
    await controller.run('gadgets.example.com');
    assert.deepEqual(writes, []);

    // A change it must write is still written: the names it accepts follow the spec.
    const p = await call(cp, 'PATCH', `${CRDS}/gadgets.example.com`, {
      body: { spec: { names: { shortNames: ['gd', 'gdt'] } } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(p.status, 200, p.body);
    await eventually(
      async () => {
        const o = JSON.parse((await call(cp, 'GET', `${CRDS}/gadgets.example.com`)).body) as JsonObject;
        const accepted = (o.status as { acceptedNames?: { shortNames?: string[] } } | undefined)?.acceptedNames;
        return accepted?.shortNames?.join() === 'gd,gdt';
      },
      { what: 'the new short name accepted' },
    );
  });
});
