// startControlPlane: storage, registry, built-in controllers and the HTTPS API server, wired
// together and bootstrapped (namespaces, the `kubernetes` Service), plus a kubeconfig for it.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { MemoryStorage } from './storage/memory.ts';
import { SqliteStorage } from './storage/sqlite.ts';
import { EtcdStorage } from './storage/etcd/storage.ts';
import { LocalEtcd } from './storage/etcd/local.ts';
import type { Storage } from './storage/storage.ts';
import { ResourceCatalog } from './registry/catalog.ts';
import { builtinResourceDefs } from './registry/builtins.ts';
import { withBuiltinStrategies } from './registry/strategies.ts';
import { ObjectStore } from './registry/store/index.ts';
import { internalContext, type Admission } from './registry/context.ts';
import { GarbageCollector } from './controllers/lifecycle/garbage-collector.ts';
import { NamespaceLifecycle } from './controllers/lifecycle/namespace.ts';
import { CrdController } from './controllers/lifecycle/crd.ts';
import { ServiceAccountController } from './controllers/lifecycle/service-accounts.ts';
import { EventTtlController } from './controllers/lifecycle/event-ttl.ts';
import { ReplicaSetController } from './controllers/workloads/replicaset/controller.ts';
import { ReplicationManager } from './controllers/workloads/replicationcontroller/controller.ts';
import { ApiServiceRegistration } from './controllers/lifecycle/apiservice-registration.ts';
import { DeploymentController } from './controllers/workloads/deployment/controller.ts';
import { StatefulSetController } from './controllers/workloads/statefulset/controller.ts';
import { DaemonSetController } from './controllers/workloads/daemonset/controller.ts';
import { JobController } from './controllers/workloads/job/controller.ts';
import { CronJobController } from './controllers/workloads/cronjob/controller.ts';
import { EndpointsController } from './controllers/network/endpoints.ts';
import { EndpointSliceController } from './controllers/network/endpointslices.ts';
import { RootCaPublisher } from './controllers/lifecycle/root-ca-publisher.ts';
import type { PassiveClock } from '../apimachinery/backoff.ts';
import { startClusterControllers, type ClusterOptions, type NodeControls } from './controllers/nodes/cluster.ts';
import type { NodeAgentHandler } from './controllers/nodes/simulated-nodes.ts';
import { createApiServer, type ApiServerOptions } from './server/server.ts';
import type { Faults } from './server/faults/index.ts';
import type { Extensions } from './server/extensions.ts';
import { createSubresources } from './registry/subresources/index.ts';
import { createTableRenderer } from './server/table/index.ts';
import { generateServingCertificates } from './server/tls.ts';
import { buildKubeconfig, writeFileAtomic } from './server/kubeconfig.ts';
import type { WatchRegistry } from './server/watches.ts';
import { installOpenApi } from './server/openapi/index.ts';
import { WebhookAdmission } from './admission/dispatcher.ts';
import { webhookConverterFor } from './crd/conversion/index.ts';
import type { ServiceResolver } from './admission/types.ts';
import { BearerAuthenticator, staticTokenVerifier } from './auth/authentication.ts';
import { createTokenAuthentication, type PodTokenSource } from './auth/tokens/index.ts';
import { privilegedGroupAuthorizer, unionAuthorizer } from './auth/authorization.ts';
import type { UserInfo } from './auth/user.ts';
import { RbacAuthorizer, RuleResolver, ensureBootstrapPolicy } from './auth/rbac/index.ts';
import { ClusterRoleAggregationController } from './controllers/lifecycle/clusterrole-aggregation.ts';
import { EscalationCheck } from './auth/rbac/escalation.ts';
import { EscalationAdmission } from './auth/rbac/escalation-admission.ts';
import { accessReviews } from './auth/reviews/index.ts';
import {
  OWNER_REFERENCES_PERMISSION_ENFORCEMENT,
  OwnerReferencesPermissionEnforcement,
  enabledAdmissionPlugins,
} from './admission/plugins/index.ts';

export interface ControlPlaneOptions extends ClusterOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1: the server is never exposed unless asked. */
  host?: string;
  /** Where to write the kubeconfig (atomically); none is written when unset. */
  kubeconfigPath?: string;
  /** Bearer token clients must present; a random one by default. */
  token?: string;
  /** Changes kept for watches and paged lists (older resourceVersions get 410). Default 10,000. */
  historySize?: number;
  /** Bytes of JSON those kept changes may hold, whichever bound is hit first. Default 256 MiB. */
  historyBytes?: number;
  /** Reads (get, list) served at once, as kube's --max-requests-inflight; 0 = unlimited. Default 400. */
  maxRequestsInFlight?: number;
  /** Writes served at once, as kube's --max-mutating-requests-inflight; 0 = unlimited. Default 200. */
  maxMutatingRequestsInFlight?: number;
  /** Interval of BOOKMARK events on watches that asked for them. Default 60 s, as kube's watch cache. */
  bookmarkIntervalMs?: number;
  /** kube-apiserver's --min-request-timeout: a watch without timeoutSeconds ends after 1–2× this. Default 1800 s. */
  minRequestTimeoutSeconds?: number;
  /** Use this storage instead of a fresh in-memory one. */
  storage?: Storage;
  /**
   * Keep the cluster's objects in a durable store in this directory (storage/sqlite.ts): a later
   * start on it resumes them. Refused while another process has it open. Ignored with `storage`.
   */
  dataDir?: string;
  /**
   * Keep the cluster's objects in etcd (storage/etcd/) instead: the `endpoints` of a running etcd
   * (kube-apiserver's --etcd-servers), or none to start Debian's etcd with its data in
   * `<dataDir>/etcd`. Several control planes can share one etcd; give all but one
   * `controllers: false`. Ignored with `storage`.
   */
  etcd?: {
    endpoints?: string[];
    /** Key prefix, as kube-apiserver's --etcd-prefix. Default `/registry`. */
    prefix?: string;
    /** As kube-apiserver's --etcd-compaction-interval. Default 5 min; 0 never compacts. */
    compactionIntervalMs?: number;
  };
  /** Where admission webhooks' `clientConfig.service` is dialled; default: the Service's Endpoints. */
  serviceResolver?: ServiceResolver;
  /** How long a core/v1 Event lives after its last write, as kube-apiserver's --event-ttl. Default 3600. */
  eventTtlSeconds?: number;
  /**
   * The DefaultTolerationSeconds admission plugin's --default-not-ready-toleration-seconds and
   * --default-unreachable-toleration-seconds: the NoExecute tolerations every pod gets. Default 300.
   */
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
  /** First delay before the Job controller replaces a failed pod (doubling). Default 10 s, as kube. */
  jobPodFailureBackoffMs?: number;
  /**
   * The time CronJobs are scheduled by, and service-account tokens are issued and checked by
   * (tests drive it). Default: the system clock.
   */
  clock?: PassiveClock;
  /** How often the CronJob controller looks at every CronJob besides its own timers. Default 10 s. */
  cronJobResyncMs?: number;
  /**
   * Run kube-controller-manager's root CA publisher: a `kube-root-ca.crt` ConfigMap (the cluster
   * CA) in every namespace, as on every real cluster. Default true; false leaves namespaces bare.
   */
  publishRootCaConfigMaps?: boolean;
  /**
   * More bearer tokens and who they authenticate as, as kube-apiserver's --token-auth-file
   * (groups as given, plus system:authenticated). RBAC decides what each may do.
   */
  users?: Array<{ token: string; user: UserInfo }>;
  /**
   * Admission plugins kube-apiserver leaves off, turned on as its --enable-admission-plugins:
   * only `OwnerReferencesPermissionEnforcement` (OpenShift enables OwnerReferencesPermissionEnforcement,
   * so operators that pass here fail there without `update` on their owners' finalizers). Unknown
   * names fail the start.
   */
  admissionPlugins?: string[];
}

export interface ControlPlaneInternals {
  storage: Storage;
  store: ObjectStore;
  catalog: ResourceCatalog;
  watches: WatchRegistry;
  extensions: Extensions;
  setAdmission(admission: Admission): void;
  /** Replaces the webhook Service resolver (`undefined`: back to the Endpoints lookup). */
  setServiceResolver(resolver: ServiceResolver | undefined): void;
  addRoute(route: NonNullable<ApiServerOptions['routes']>[number]): void;
  onStop(fn: () => void | Promise<void>): void;
  /** Simulated worker nodes (see controllers/nodes/simulated-nodes.ts). */
  nodes: NodeControls;
  /** Claims pods of a runtime class: simulated kubelets leave them to `handler`'s owner. */
  registerNodeAgent(runtimeClassName: string, handler?: NodeAgentHandler): void;
  unregisterNodeAgent(runtimeClassName: string): void;
  /** Pod-bound service-account tokens, as the kubelets get them. */
  podTokens: PodTokenSource;
}

export interface ControlPlane {
  url: string;
  /** Kubeconfig YAML with the CA embedded and the bearer token. */
  kubeconfig: string;
  kubeconfigPath?: string;
  token: string;
  caPem: string;
  stop(): Promise<void>;
  /** Cuts every open watch from the server side (for reconnect tests). */
  dropWatches(): void;
  /** Forgets the watch history, so older resourceVersions get 410 Gone. */
  compactHistory(): void;
  /** Injects faults on HTTP request paths (latency, error statuses, dropped watches, resets) for tests. */
  faults: Faults;
  internals: ControlPlaneInternals;
}

/** The store `dataDir` or `etcd` asks for, and the etcd started for it; none without either. */
async function openDurableStorage(
  options: ControlPlaneOptions,
  history: { historySize?: number; historyBytes?: number },
): Promise<{ durable?: SqliteStorage | EtcdStorage; localEtcd?: LocalEtcd }> {
  if (!options.etcd) return options.dataDir ? { durable: new SqliteStorage(options.dataDir, history) } : {};
  let endpoints = options.etcd.endpoints ?? [];
  let localEtcd: LocalEtcd | undefined;
  if (endpoints.length === 0) {
    if (!options.dataDir) throw new Error('a local etcd keeps its data in the data directory: set dataDir too');
    localEtcd = await LocalEtcd.start({ dir: path.join(options.dataDir, 'etcd') });
    endpoints = [localEtcd.endpoint];
  }
  try {
    const durable = new EtcdStorage({
      ...history,
      endpoints,
      prefix: options.etcd.prefix,
      compactionIntervalMs: options.etcd.compactionIntervalMs,
    });
    return { durable, localEtcd };
  } catch (e) {
    await localEtcd?.stop();
    throw e;
  }
}

const BOOTSTRAP_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const plugins = enabledAdmissionPlugins(options.admissionPlugins);
  const history = { historySize: options.historySize, historyBytes: options.historyBytes };
  // A store this control plane opened is closed with it; one passed in belongs to the caller.
  const { durable, localEtcd } = options.storage ? {} : await openDurableStorage(options, history);
  const storage = options.storage ?? durable ?? new MemoryStorage(history);
  const catalog = new ResourceCatalog();
  const admissionSettings = {
    defaultNotReadyTolerationSeconds: options.defaultNotReadyTolerationSeconds,
    defaultUnreachableTolerationSeconds: options.defaultUnreachableTolerationSeconds,
  };
  for (const def of withBuiltinStrategies(builtinResourceDefs(), undefined, admissionSettings)) catalog.add(def);
  const store = new ObjectStore(storage);
  const admission = new WebhookAdmission(storage, { serviceResolver: options.serviceResolver });
  store.setAdmission(admission);
  const subresources = createSubresources(store);
  const extensions: Extensions = { ...subresources, table: createTableRenderer() };
  // Service-account tokens: the signing key is made now; TokenRequest and the reviews are served.
  const adminTokens = staticTokenVerifier(token);
  const tokens = await createTokenAuthentication({ store, catalog, clock: options.clock, staticTokens: adminTokens });
  extensions.createOnly = new Map([...(extensions.createOnly ?? []), ...tokens.createOnly]);

  const controllers: Array<{ start(): void; stop(): void }> = [
    new GarbageCollector(storage, store, catalog),
    new NamespaceLifecycle(storage, store, catalog),
    new CrdController(storage, store, catalog, (crd) => webhookConverterFor(admission.client, crd)),
    new ServiceAccountController(storage, store, catalog),
    new EventTtlController(storage, { ttlSeconds: options.eventTtlSeconds }),
    new ReplicaSetController(storage, store, catalog),
    new ReplicationManager(storage, store, catalog),
    new ApiServiceRegistration(storage, store, catalog),
    new DeploymentController(storage, store, catalog),
    new StatefulSetController(storage, store, catalog),
    new DaemonSetController(storage, store, catalog),
    new JobController(storage, store, catalog, { podFailureBackoffMs: options.jobPodFailureBackoffMs }),
    new CronJobController(storage, store, catalog, { clock: options.clock, resyncMs: options.cronJobResyncMs }),
    new EndpointsController(storage, store, catalog),
    new EndpointSliceController(storage, store, catalog),
    new ClusterRoleAggregationController(storage, store, catalog),
  ];
  const ruleResolver = new RuleResolver(storage, catalog);
  controllers.push(ruleResolver);
  if (options.controllers !== false) for (const c of controllers) c.start();
  else ruleResolver.start();
  const certs = generateServingCertificates([host]);
  // Every namespace's kube-root-ca.crt carries the CA that signed the serving certificate. A store
  // kept from an earlier run holds that run's CA: it is replaced before any kubelet starts, or the
  // pods it resumes would mount a CA that no longer signs this server's certificate.
  if ((options.publishRootCaConfigMaps ?? true) && options.controllers !== false) {
    const rootCa = new RootCaPublisher(storage, store, catalog, certs.ca.certPem);
    rootCa.start();
    controllers.push(rootCa);
    await rootCa.idle();
  }
  const apiAccess = { port: 0, caPem: '' };
  const cluster = startClusterControllers(
    {
      storage,
      store,
      catalog,
      subresources,
      apiServerAccess: {
        apiServer: () => ({ host: host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host, port: apiAccess.port }),
        podTokens: tokens.podTokens,
        caPem: () => apiAccess.caPem,
      },
    },
    options,
  );
  extensions.podStreams = cluster.podStreams;

  const ctx = internalContext('kube-apiserver');
  const nsDef = catalog.lookup('', 'v1', 'namespaces')!;
  // A server that runs no controllers stands beside one that does, which bootstraps the cluster.
  if (options.controllers !== false) {
    for (const name of BOOTSTRAP_NAMESPACES) {
      if (!store.getStored(nsDef, undefined, name)) await store.create(nsDef, undefined, { metadata: { name } }, ctx);
    }
    await ensureBootstrapPolicy(store, catalog);
  }

  apiAccess.caPem = certs.ca.certPem;
  const routes: NonNullable<ApiServerOptions['routes']> = [];
  installOpenApi({ catalog, storage, addRoute: (r) => routes.push(r) });
  routes.push(tokens.discoveryRoute);
  // Access reviews ask the same authorizer every request answers to; RBAC writes are checked for
  // escalation between mutating admission and validation, as kube's RBAC storage does.
  const authorizer = unionAuthorizer([privilegedGroupAuthorizer, new RbacAuthorizer(ruleResolver)]);
  extensions.createOnly = new Map([...(extensions.createOnly ?? []), ...accessReviews(authorizer, ruleResolver)]);
  const escalation = new EscalationAdmission(new EscalationCheck(authorizer, ruleResolver), admission);
  // Built-in validating plugins run ahead of the webhooks (and of setAdmission's replacement).
  store.setAdmission(
    plugins.has(OWNER_REFERENCES_PERMISSION_ENFORCEMENT)
      ? new OwnerReferencesPermissionEnforcement(authorizer, catalog, escalation)
      : escalation,
  );
  const api = createApiServer({
    catalog,
    store,
    extensions,
    authenticator: new BearerAuthenticator([
      adminTokens,
      tokens.verifier,
      ...(options.users ?? []).map((u) => staticTokenVerifier(u.token, u.user)),
    ]),
    authorizer,
    tls: certs.serving,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
    inflight: {
      maxRequestsInFlight: options.maxRequestsInFlight,
      maxMutatingRequestsInFlight: options.maxMutatingRequestsInFlight,
    },
    routes,
    // As kube-apiserver's etcd readiness check: a server whose store lost etcd is taken out of rotation.
    ready: () => !(durable instanceof EtcdStorage) || durable.healthy(),
  });
  let port: number;
  let url: string;
  let kubeconfig: string;
  try {
    await new Promise<void>((resolve, reject) => {
      api.server.once('error', reject);
      api.server.listen(options.port ?? 0, host, () => resolve());
    });
    port = (api.server.address() as AddressInfo).port;
    apiAccess.port = port;
    url = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
    if (options.controllers !== false) {
      await bootstrapKubernetesService(store, catalog, host, port);
      await cluster.bootstrap();
    }
    kubeconfig = buildKubeconfig({ server: url, caPem: certs.ca.certPem, token });
    if (options.kubeconfigPath) writeFileAtomic(options.kubeconfigPath, kubeconfig);
  } catch (e) {
    // A half-started control plane must not keep the process alive.
    await cluster.stopProcesses();
    cluster.stop();
    for (const c of controllers) c.stop();
    await api.close();
    await durable?.close();
    await localEtcd?.stop();
    throw e;
  }

  const stopHooks: Array<() => void | Promise<void>> = [];
  let stopped = false;
  return {
    url,
    kubeconfig,
    kubeconfigPath: options.kubeconfigPath,
    token,
    caPem: certs.ca.certPem,
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const hook of stopHooks.reverse()) await hook();
      await cluster.stopProcesses();
      cluster.stop();
      for (const c of controllers) c.stop();
      admission.stop();
      await api.close();
      await durable?.close();
      await localEtcd?.stop();
    },
    dropWatches: () => api.watches.dropAll(),
    compactHistory: () => storage.compact(),
    faults: api.faults,
    internals: {
      storage,
      store,
      catalog,
      watches: api.watches,
      extensions,
      setAdmission: (a) => escalation.setInner(a),
      setServiceResolver: (r) => admission.setServiceResolver(r),
      addRoute: (r) => routes.push(r),
      onStop: (fn) => stopHooks.push(fn),
      nodes: cluster.nodes,
      registerNodeAgent: (rc, handler) => cluster.registerNodeAgent(rc, handler),
      unregisterNodeAgent: (rc) => cluster.unregisterNodeAgent(rc),
      podTokens: tokens.podTokens,
    },
  };
}

/** The `kubernetes` Service and its Endpoints in `default`, pointing at this server. */
async function bootstrapKubernetesService(
  store: ObjectStore,
  catalog: ResourceCatalog,
  host: string,
  port: number,
): Promise<void> {
  const ctx = internalContext('kube-apiserver');
  const svcDef = catalog.lookup('', 'v1', 'services')!;
  const epDef = catalog.lookup('', 'v1', 'endpoints')!;
  if (!store.getStored(svcDef, 'default', 'kubernetes')) {
    await store.create(
      svcDef,
      'default',
      {
        metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }] },
      },
      ctx,
    );
  }
  const subsets = [
    {
      addresses: [{ ip: host === '0.0.0.0' || host.includes(':') ? '127.0.0.1' : host }],
      ports: [{ name: 'https', port, protocol: 'TCP' }],
    },
  ];
  if (!store.getStored(epDef, 'default', 'kubernetes')) {
    await store.create(epDef, 'default', { metadata: { name: 'kubernetes' }, subsets }, ctx);
  }
}
