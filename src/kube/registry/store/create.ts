// POST: a new object, named by the client or generated from `generateName`, in a namespace that
// exists and is not being terminated.
import { randomInt } from 'node:crypto';
import { alreadyExists, badRequest, forbidden, notFound } from '../../../apimachinery/errors/index.ts';
import type { JsonObject, KubeObject, ObjectMeta } from '../../../apimachinery/meta/index.ts';
import { cloneJson } from '../../../apimachinery/json/index.ts';
import { KeyExistsError, type StoredObject } from '../../storage/storage.ts';
import type { RequestContext } from '../context.ts';
import { objectKey } from '../keys.ts';
import type { ResourceDef } from '../resource.ts';
import type { StoreContext } from './context.ts';
import { decodeObject } from './decode.ts';
import { meta, ordered, orderedForStorage, parseStored, refOf } from './objects.ts';
import { prepareCreate } from './prepare-create.ts';
import { present, served, toStored, written } from './presentation.ts';
import { checkBodyDecodes } from './typed.ts';

const GENERATE_NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** Generated names that collide with an existing object are drawn again this many times. */
const GENERATE_NAME_RETRIES = 5;

export async function createObject(
  store: StoreContext,
  def: ResourceDef,
  namespace: string | undefined,
  body: unknown,
  ctx: RequestContext,
): Promise<JsonObject> {
  const obj = decodeObject(def, body);
  checkBodyDecodes(def, obj);
  const m = meta(obj);
  placeInNamespace(def, m, namespace);
  if (m.resourceVersion !== undefined && m.resourceVersion !== '') {
    throw badRequest('resourceVersion should not be set on objects to be created');
  }
  if (def.namespaced) checkNamespaceAcceptsCreate(store, namespace ?? '');

  for (let attempt = 0; ; attempt++) {
    const candidate = cloneJson(obj);
    generateName(meta(candidate));
    const prepared = await prepareCreate(store, def, candidate, ctx);
    const name = () => String(meta(prepared).name);
    def.strategy.allocate?.(prepared);
    if (ctx.dryRun) {
      def.strategy.release?.(prepared);
      if (store.storage.get(objectKey(def, namespace, name()))) throw alreadyExists(refOf(def), name());
      // kube's dry run still goes through the storage codec and back (DryRunnableStorage.copyInto):
      // a webhook-converted CRD shows what its conversion round trip keeps.
      if (def.converter) return served(def, await toStored(def, ordered(def, prepared)));
      return present(def, ordered(def, prepared));
    }
    let toStore: JsonObject;
    let stored: StoredObject;
    try {
      toStore = await toStored(def, orderedForStorage(def, prepared));
      stored = store.storage.create(objectKey(def, namespace, name()), toStore as KubeObject);
    } catch (e) {
      def.strategy.release?.(prepared);
      if (!(e instanceof KeyExistsError)) throw e;
      if (!m.name && m.generateName && attempt < GENERATE_NAME_RETRIES) continue;
      throw alreadyExists(refOf(def), name());
    }
    return written(def, toStore, stored);
  }
}

function placeInNamespace(def: ResourceDef, m: ObjectMeta, namespace: string | undefined): void {
  if (!def.namespaced) {
    delete m.namespace;
    return;
  }
  if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  m.namespace = namespace;
}

function generateName(m: ObjectMeta): void {
  if (m.name || !m.generateName) return;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_NAME_ALPHABET[randomInt(GENERATE_NAME_ALPHABET.length)];
  m.name = `${m.generateName}${suffix}`;
}

function checkNamespaceAcceptsCreate(store: StoreContext, namespace: string): void {
  const ns = store.storage.get(`/core/namespaces/${namespace}`);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if (!meta(parseStored(ns)).deletionTimestamp) return;
  throw forbidden(`unable to create new content in namespace ${namespace} because it is being terminated`, {
    name: namespace,
    kind: 'namespaces',
    causes: [
      {
        reason: 'NamespaceTerminating',
        message: `namespace ${namespace} is being terminated`,
        field: 'metadata.namespace',
      },
    ],
  });
}
