// `peerpods manifests` writes config/ from code; `install|uninstall` apply or remove the CRDs and
// `deploy|undeploy` the whole operator (config/default) on the current kubeconfig context, through
// the runtime client with server-side apply (field manager `peerpods`).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { KubeClient } from '../../runtime/index.ts';
import { allCrds as peerPodCrds } from '../../peerpod/index.ts';
import { kvmCrds } from '../../kvm/index.ts';

/** Every CRD this package defines: the peer-pod and the kvm-operator APIs. */
export const allCrds = () => [...peerPodCrds(), ...kvmCrds()];
import { applyAll, deleteAll } from './apply.ts';
import { claimNamespaces, madeByDeploy } from './ownership.ts';
import { DEFAULT_IMAGE, DEFAULT_NAMESPACE, buildFiles, buildLayers, deployObjects } from './layers.ts';
import type { ManifestOptions } from './layers.ts';

export async function writeManifests(outDir: string, opts: ManifestOptions = {}): Promise<string[]> {
  const files = buildFiles(opts);
  // Generated output only: stale files of an older layout must not linger.
  for (const layer of new Set(files.map((f) => f.path.split('/')[0]))) {
    await rm(path.join(outDir, layer), { recursive: true, force: true });
  }
  for (const f of files) {
    const target = path.join(outDir, f.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, f.content);
  }
  return files.map((f) => f.path);
}

interface ClusterOpts {
  kubeconfig?: string;
  namespace: string;
  image: string;
  peerpodControllerArg?: string[];
}

async function withClient<T>(o: { kubeconfig?: string }, fn: (c: KubeClient) => Promise<T>): Promise<T> {
  const client = await KubeClient.load(o.kubeconfig ? { kubeconfigPath: o.kubeconfig } : {});
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

const print = (line: string): void => console.log(line);

export async function install(o: { kubeconfig?: string }): Promise<void> {
  await withClient(o, (c) => applyAll(c, allCrds(), print));
}

export async function uninstall(o: { kubeconfig?: string }): Promise<void> {
  await withClient(o, (c) => deleteAll(c, allCrds(), print));
}

export async function deploy(o: ClusterOpts): Promise<void> {
  const opts: ManifestOptions = {
    namespace: o.namespace,
    image: o.image,
    peerPodControllerArgs: o.peerpodControllerArg ?? [],
  };
  await withClient(o, (c) => deployTo(c, opts, print));
}

/** What `deploy` applies, through a client: also `peerpods start`'s deploy onto its embedded cluster. */
export async function deployTo(c: KubeClient, opts: ManifestOptions, log: (line: string) => void): Promise<void> {
  const objects = deployObjects(opts);
  await applyAll(c, await claimNamespaces(c, objects, log), log);
}

/**
 * Removes what deploy made except the CRDs (deleting them would delete every PeerPod: use
 * uninstall); a namespace that existed before deploy stays, with what is in it.
 */
export async function undeploy(o: ClusterOpts): Promise<void> {
  const l = buildLayers({ namespace: o.namespace, image: o.image });
  await withClient(o, (c) => deleteAll(c, [...l.rbac, ...l.manager], print, { onlyIf: madeByDeploy }));
}

export function registerManifestCommands(program: Command): void {
  const cluster = (cmd: Command) =>
    cmd
      .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
      .option('--namespace <ns>', 'namespace of the operator', DEFAULT_NAMESPACE)
      .option('--image <ref>', 'operator image', DEFAULT_IMAGE);

  program
    .command('manifests')
    .description('write the kustomize layers (crd, rbac, manager, samples, default) generated from code')
    .option('-o, --output <dir>', 'output directory', 'config')
    .option('--namespace <ns>', 'namespace of the operator', DEFAULT_NAMESPACE)
    .option('--image <ref>', 'operator image', DEFAULT_IMAGE)
    .action(async (o: { output: string; namespace: string; image: string }) => {
      const written = await writeManifests(o.output, { namespace: o.namespace, image: o.image });
      console.log(`wrote ${written.length} files under ${o.output}/`);
    });
  program
    .command('install')
    .description('apply the CRDs to the current kubeconfig context')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .action(install);
  program
    .command('uninstall')
    .description('delete the CRDs (and with them every PeerPod)')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .action(uninstall);
  cluster(program.command('deploy').description('apply config/default: CRDs, RBAC, the controller Deployment'))
    .option(
      '--peerpod-controller-arg <flag>',
      "a flag added to the PeerPod controller's container args, e.g. --orphan-grace=30s (repeatable)",
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .action(deploy);
  cluster(
    program
      .command('undeploy')
      .description('delete what deploy created, except the CRDs and a namespace it did not create'),
  ).action(undeploy);
}
