// The shape the Service and Ingress handlers share: a fixed set of named objects in the cluster's
// namespace. Current = those names as found; created when missing, merged onto the live object
// when modified (so server-assigned fields survive), and deleted on teardown only once no pod is
// left that could still be serving through them.
import {
  crudHandler,
  diffByName,
  ignoreAlreadyExists,
  ignoreNotFound,
  intersectByName,
} from '../../../runtime/index.ts';
import type { KubeObject, ResourceHandler, ResourceType } from '../../../runtime/index.ts';
import type { KVMConfig } from '../../api/kvmconfig.ts';
import type { KvmDeps } from '../../deps.ts';
import { clusterNamespace } from '../../key.ts';
import { podsInNamespace } from './namespace.ts';

export interface FixedObjectsSpec<O extends KubeObject> {
  /** Handler name; also the noun of log lines ("service created"). */
  name: string;
  type: ResourceType;
  desired(c: KVMConfig): O[];
  isModified(current: O, desired: O): boolean;
  /** The object to write back: `desired` laid over `current`. */
  merge(current: O, desired: O): O;
}

export function fixedObjectsHandler<O extends KubeObject>(
  deps: KvmDeps,
  spec: FixedObjectsSpec<O>,
): ResourceHandler<KVMConfig> {
  const { client } = deps;
  return crudHandler<KVMConfig, O[]>({
    name: spec.name,
    async currentState(c, ctx) {
      const got = await Promise.all(
        spec
          .desired(c)
          .map((d) =>
            ignoreNotFound(
              client.get<O>(spec.type, d.metadata.name as string, clusterNamespace(c), { signal: ctx.signal }),
            ),
          ),
      );
      return got.filter((o): o is Awaited<O> => o !== undefined);
    },
    async desiredState(c) {
      return spec.desired(c);
    },
    updatePatch(_c, current, desired) {
      const diff = diffByName(current, desired, spec.isModified);
      const byName = new Map(current.map((o) => [o.metadata.name, o]));
      // Only the desired names are read, so nothing is ever "current but undesired": no delete.
      return {
        create: diff.create,
        update: diff.update.map((d) => spec.merge(byName.get(d.metadata.name) as O, d)),
      };
    },
    async deletePatch(c, current, desired, ctx) {
      const pods = await podsInNamespace(client, clusterNamespace(c), ctx.signal);
      if (pods > 0) {
        const reason = `${pods} pod(s) left in namespace ${clusterNamespace(c)} may still serve through the ${spec.name}s`;
        ctx.cancelHandler(reason);
        ctx.keepFinalizer(reason);
        return {};
      }
      return { delete: intersectByName(current, desired) };
    },
    async applyCreate(_c, change, ctx) {
      for (const o of change) {
        await ignoreAlreadyExists(client.create(spec.type, o, { signal: ctx.signal }));
        ctx.log.info({ [spec.name]: o.metadata.name }, `${spec.name} created`);
      }
    },
    async applyDelete(_c, change, ctx) {
      for (const o of change) {
        await ignoreNotFound(
          client.delete(spec.type, o.metadata.name as string, o.metadata.namespace, { signal: ctx.signal }),
        );
        ctx.log.info({ [spec.name]: o.metadata.name }, `${spec.name} deleted`);
      }
    },
    async applyUpdate(_c, change, ctx) {
      for (const o of change) {
        await client.update(spec.type, o, { signal: ctx.signal });
        ctx.log.info({ [spec.name]: o.metadata.name }, `${spec.name} updated`);
      }
    },
  });
}
