// startTestEnv: envtest done right. envtest runs a bare kube-apiserver and etcd, so namespaces never
// finish deleting (controller-runtime#880) and owners' dependents are never collected (#1459); this
// environment is a whole embedded cluster (garbage collector, namespace lifecycle, scheduler,
// simulated nodes) in the test's own process, on loopback with TLS and a bearer token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../kube/index.ts';
import {
  KubeClient,
  MutatingWebhookConfigurations,
  Nodes,
  ValidatingWebhookConfigurations,
  serverSideApply,
  staticTokenAuth,
  type ClientOptions,
  type ConnectionConfig,
  type KubeObject,
  type ResourceType,
} from '../runtime/index.ts';
import { installCustomResourceDefinitions } from './crds.ts';
import type { ManifestSource } from './manifests.ts';
import { waitFor, waitForDeletion, waitForObject, type WaitOptions } from './wait.ts';
import {
  prepareWebhookServing,
  webhookConfigurations,
  type WebhookInstallOptions,
  type WebhookServing,
} from './webhooks.ts';

export interface TestEnvOptions {
  /**
   * CustomResourceDefinitions to install before startTestEnv returns (each served when it does):
   * objects, or paths of YAML files or directories such as kubebuilder's `config/crd/bases`
   * (documents of other kinds there are skipped). Default none.
   */
  crds?: ManifestSource[];
  /**
   * Simulated worker nodes, Ready when startTestEnv returns: a count (node-1..N) or names.
   * Default 1, so pods are scheduled and run; 0 for none.
   */
  nodes?: number | string[];
  /**
   * Admission webhooks served by the test itself: the environment issues a serving certificate,
   * picks a loopback port (`env.webhook`) and installs these configurations pointed at it with the
   * CA in caBundle; the conversion webhooks of the CRDs it installs (`spec.conversion.strategy:
   * Webhook`) are pointed at it too. Default: no webhook serving.
   */
  webhooks?: WebhookInstallOptions;
  /**
   * Run the cluster's controllers: garbage collector, namespace lifecycle, workloads, scheduler and
   * the nodes' kubelets. Default true; false serves the API only, as envtest's bare apiserver.
   */
  controllers?: boolean;
  /** Default deadline of every wait (installs, nodes, `env.waitFor`). Default 10 000 ms. */
  timeoutMs?: number;
  /** Field manager of the environment's own writes (CRDs, webhook configurations). Default `peerpods-testing`. */
  fieldManager?: string;
  /** Anything else the embedded control plane takes (faults, node capacity, clocks…), for the unusual test. */
  controlPlane?: Omit<ControlPlaneOptions, 'nodes' | 'controllers' | 'host' | 'kubeconfigPath'>;
}

export interface TestEnv extends AsyncDisposable {
  /** The API server's URL (https on 127.0.0.1). */
  url: string;
  /** A kubeconfig file (bearer token, CA embedded), for kubectl and for operators started as processes. */
  kubeconfigPath: string;
  /** The same kubeconfig as YAML text. */
  kubeconfigYaml: string;
  /** The kubeconfig as `@kubernetes/client-node` reads it. */
  kubeconfig: KubeConfig;
  /** A client of peerpods/runtime, as the cluster admin; a Manager takes it: `new Manager({ client: env.client })`. */
  client: KubeClient;
  /** Where the test's webhook server listens and what it serves with; set when `webhooks` was given. */
  webhook: WebhookServing | undefined;
  /** The environment's temporary directory (kubeconfig, webhook certificates); removed by stop(). */
  dir: string;
  /** The embedded control plane, for what the environment does not wrap (faults, internals). */
  controlPlane: ControlPlane;
  /** Another client (own options), closed by stop(). */
  newClient(opts?: ClientOptions): KubeClient;
  /** Installs CRDs (objects or YAML paths) and resolves once each served version answers a list. */
  installCRDs(crds: ManifestSource[], opts?: { timeoutMs?: number }): Promise<KubeObject[]>;
  /** Installs webhook configurations pointed at `env.webhook` (needs the `webhooks` option). */
  installWebhookConfigurations(configurations: ManifestSource[]): Promise<KubeObject[]>;
  /** Polls `condition` until it returns a truthy value (thrown errors count as "not yet"). */
  waitFor<T>(condition: () => T | Promise<T>, opts?: WaitOptions): Promise<NonNullable<T>>;
  /** Waits until the object exists and `predicate` holds. */
  waitForObject<T extends KubeObject>(
    type: ResourceType,
    name: string,
    namespace?: string,
    predicate?: (obj: T) => boolean,
    opts?: WaitOptions,
  ): Promise<T>;
  /** Waits until the object is gone (finalizers, garbage collection, namespace deletion). */
  waitForDeletion(type: ResourceType, name: string, namespace?: string, opts?: WaitOptions): Promise<void>;
  /** Stops the control plane and removes the temporary directory; idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_FIELD_MANAGER = 'peerpods-testing';

export async function startTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const controllers = options.controllers ?? true;
  const nodes = options.nodes ?? (controllers ? 1 : 0);
  const nodeCount = typeof nodes === 'number' ? nodes : nodes.length;
  if (!controllers && nodeCount > 0) throw new Error('startTestEnv: nodes need the controllers (controllers: true)');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const fieldManager = options.fieldManager ?? DEFAULT_FIELD_MANAGER;
  const dir = mkdtempSync(join(tmpdir(), 'peerpods-testenv-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  // client-node is ESM only: imported, never required (jest cannot require ES modules), and
  // while the control plane starts.
  const clientNode = import('@kubernetes/client-node');
  clientNode.catch(() => undefined);
  const clients: KubeClient[] = [];
  let controlPlane: ControlPlane | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      for (const c of clients) c.close();
      try {
        await controlPlane?.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    })());

  try {
    controlPlane = await startControlPlane({
      ...options.controlPlane,
      host: '127.0.0.1',
      controllers,
      kubeconfigPath,
      nodes: typeof nodes === 'number' ? nodes : 0,
    });
    const cp = controlPlane;
    // The connection is built from what the control plane handed out rather than by parsing the
    // kubeconfig, which goes through client-node's parser (and require()).
    const connection: ConnectionConfig = {
      server: cp.url,
      tls: { ca: Buffer.from(cp.caPem), rejectUnauthorized: true },
      auth: staticTokenAuth(cp.token),
      namespace: 'default',
      source: 'kubeconfig',
      kubeconfigPath,
    };
    const newClient = (opts: ClientOptions = {}): KubeClient => {
      const c = new KubeClient(connection, opts);
      clients.push(c);
      return c;
    };
    const client = newClient();
    const wait = (opts: WaitOptions = {}) => ({ ...opts, timeoutMs: opts.timeoutMs ?? timeoutMs });
    if (typeof nodes !== 'number') for (const name of nodes) await cp.internals.nodes.add(name);
    if (nodeCount > 0) await waitNodesReady(client, nodeCount, wait());
    const webhook = options.webhooks ? await prepareWebhookServing(dir, options.webhooks.port) : undefined;

    const installWebhookConfigurations = async (sources: ManifestSource[]): Promise<KubeObject[]> => {
      if (!webhook) throw new Error('installWebhookConfigurations: start the environment with the `webhooks` option');
      const out: KubeObject[] = [];
      for (const cfg of webhookConfigurations(sources, webhook)) {
        const type =
          cfg.kind === 'MutatingWebhookConfiguration' ? MutatingWebhookConfigurations : ValidatingWebhookConfigurations;
        out.push(await serverSideApply(client, type, cfg, { fieldManager, force: true }));
      }
      return out;
    };
    const installCRDs = (crds: ManifestSource[], opts: { timeoutMs?: number } = {}) =>
      installCustomResourceDefinitions(client, crds, { fieldManager, timeoutMs: opts.timeoutMs ?? timeoutMs, webhook });

    if (options.crds?.length) await installCRDs(options.crds);
    if (options.webhooks?.configurations?.length) await installWebhookConfigurations(options.webhooks.configurations);

    const kubeconfig = new (await clientNode).KubeConfig();
    kubeconfig.loadFromString(cp.kubeconfig);
    return {
      url: cp.url,
      kubeconfigPath,
      kubeconfigYaml: cp.kubeconfig,
      kubeconfig,
      client,
      webhook,
      dir,
      controlPlane: cp,
      newClient,
      installCRDs,
      installWebhookConfigurations,
      waitFor: (condition, opts) => waitFor(condition, wait(opts)),
      waitForObject: (type, name, namespace, predicate = () => true, opts) =>
        waitForObject(client, type, name, namespace, predicate, wait(opts)),
      waitForDeletion: (type, name, namespace, opts) => waitForDeletion(client, type, name, namespace, wait(opts)),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (e) {
    // A half-started environment must leave nothing behind either.
    await stop();
    throw e;
  }
}

interface NodeStatus {
  conditions?: Array<{ type: string; status: string }>;
}

/** Waits until `count` nodes report Ready, so the scheduler can place pods on them. */
async function waitNodesReady(client: KubeClient, count: number, opts: WaitOptions & { timeoutMs: number }) {
  await waitFor(
    async () => {
      const { items } = await client.list(Nodes);
      const ready = items.filter((n) =>
        ((n.status as NodeStatus | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length >= count;
    },
    { what: `${count} Ready node(s)`, ...opts },
  );
}
