// `peerpods cluster start`: the embedded control plane in the foreground.
import { InvalidArgumentError, type Command } from 'commander';
import { resolve } from 'node:path';
import { parsePort } from '../options.ts';
import { registerNodeCommands } from './nodes.ts';
import { onShutdown } from '../signals.ts';
import type { FaultRule } from '../../kube/index.ts';

export const DEFAULT_KUBECONFIG = '.peerpods/kubeconfig';
export const DEFAULT_CLUSTER_STATE_DIR = '.peerpods/cluster';
/** Pods of this runtime class are left to the peer-pod adaptor pod of their node, as the kata shim hands them over. */
const REMOTE_RUNTIME_CLASS = 'kata-remote';

interface StartOptions {
  port: number;
  host: string;
  kubeconfig: string;
  nodes: number;
  stateDir: string;
  dataDir?: string;
  etcdServers: string[];
  etcdPrefix: string;
  localEtcd?: boolean;
  controllers: boolean;
  localImage: string[];
  remoteRuntimeClass: string[];
  enableAdmissionPlugins: string[];
  fault: FaultRule[];
}

export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('run the embedded Kubernetes-API-compatible control plane');
  cluster
    .command('start')
    .description('start the control plane in the foreground; writes a kubeconfig when ready')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 6443)
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--kubeconfig <file>', 'where to write the kubeconfig', DEFAULT_KUBECONFIG)
    .option('--nodes <n>', 'simulated worker nodes to start (node-1..N)', parseCount, 0)
    .option(
      '--state-dir <dir>',
      'where process pods get their directories (volumes, container view)',
      DEFAULT_CLUSTER_STATE_DIR,
    )
    .option(
      '--data-dir <dir>',
      "keep the cluster's objects in a durable store in this directory, resumed by the next start (default: in memory)",
    )
    .option(
      '--etcd-servers <urls>',
      "keep the cluster's objects in this etcd instead, as kube-apiserver (comma-separated client URLs)",
      commaSeparated,
      [],
    )
    .option('--etcd-prefix <prefix>', 'prefix of every etcd key, as kube-apiserver', '/registry')
    .option('--local-etcd', "start Debian's etcd with its data in --data-dir and keep the objects there")
    .option(
      '--no-controllers',
      'serve the API only: no built-in controllers, scheduler or nodes (a second API server in front of the same etcd)',
    )
    .option(
      '--local-image <ref>',
      "another image whose containers run as processes of this checkout's CLI (repeatable)",
      collect,
      [],
    )
    .option(
      '--remote-runtime-class <name>',
      `another runtime class whose pods the kubelets leave to a node agent, besides ${REMOTE_RUNTIME_CLASS} (repeatable)`,
      collect,
      [],
    )
    .option(
      '--enable-admission-plugins <names>',
      'admission plugins to turn on besides the defaults, comma-separated, as kube-apiserver (OwnerReferencesPermissionEnforcement)',
      commaSeparated,
      [],
    )
    .option(
      '--fault <rule>',
      'inject a fault on the request paths, for tests: a JSON rule as ControlPlane.faults.inject takes (repeatable)',
      collectFault,
      [],
    )
    .action(async (opts: StartOptions) => {
      const kubeconfigPath = resolve(opts.kubeconfig);
      const etcd = etcdOptions(opts);
      // Loaded here, not at the top: operators started by the same CLI never pay for the control plane.
      const { startControlPlane } = await import('../../kube/index.ts');
      const { processRuntimeOptions } = await import('./process-runtime.ts');
      const cp = await startControlPlane({
        port: opts.port,
        host: opts.host,
        kubeconfigPath,
        nodes: opts.nodes,
        ...(opts.dataDir ? { dataDir: resolve(opts.dataDir) } : {}),
        ...(etcd ? { etcd } : {}),
        controllers: opts.controllers,
        processRuntime: processRuntimeOptions(resolve(opts.stateDir), opts.localImage),
        admissionPlugins: opts.enableAdmissionPlugins,
      });
      try {
        for (const rule of opts.fault) cp.faults.inject(rule);
      } catch (e) {
        await cp.stop();
        throw e;
      }
      for (const runtimeClass of [REMOTE_RUNTIME_CLASS, ...opts.remoteRuntimeClass])
        cp.internals.registerNodeAgent(runtimeClass);
      console.log(`peerpods control plane listening on ${cp.url}`);
      console.log(`kubeconfig written to ${kubeconfigPath}`);
      if (opts.nodes > 0) console.log(`${opts.nodes} simulated node(s): ${cp.internals.nodes.list().join(', ')}`);
      console.log(`try: kubectl --kubeconfig ${kubeconfigPath} get namespaces`);
      onShutdown(async () => {
        await cp.stop();
      });
    });
  registerNodeCommands(cluster, DEFAULT_KUBECONFIG);
}

/** What the etcd flags ask for; they are checked together before anything starts. */
function etcdOptions(opts: StartOptions): { endpoints: string[]; prefix: string } | undefined {
  if (opts.localEtcd && opts.etcdServers.length > 0)
    throw new InvalidArgumentError('--local-etcd starts an etcd of its own: leave out --etcd-servers');
  if (opts.localEtcd && !opts.dataDir)
    throw new InvalidArgumentError('--local-etcd keeps its data in --data-dir: set it');
  if (!opts.controllers && opts.nodes > 0)
    throw new InvalidArgumentError('--nodes needs the controllers: leave out --no-controllers');
  for (const url of opts.etcdServers) {
    if (!/^https?:\/\/[^/\s]+\/?$/.test(url))
      throw new InvalidArgumentError(
        `--etcd-servers: ${JSON.stringify(url)} is not an etcd client URL like http://127.0.0.1:2379`,
      );
  }
  if (!opts.etcdPrefix.startsWith('/')) throw new InvalidArgumentError('--etcd-prefix must start with /');
  if (!opts.localEtcd && opts.etcdServers.length === 0) return undefined;
  return { endpoints: opts.etcdServers, prefix: opts.etcdPrefix };
}

function collectFault(value: string, previous: FaultRule[]): FaultRule[] {
  try {
    return [...previous, JSON.parse(value) as FaultRule];
  } catch {
    throw new InvalidArgumentError('must be a JSON fault rule, e.g. {"action":{"type":"delay","ms":100}}');
  }
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A kube-style list flag: repeatable, each value comma-separated. */
function commaSeparated(value: string, previous: string[]): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}
