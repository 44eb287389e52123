// `peerpods manifests` writes config/ from code; `install|uninstall` apply or remove the CRDs and
// `deploy|undeploy` the whole operator (config/default) on the current kubeconfig context, through
// the runtime client with server-side apply (field manager `peerpods`).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { KubeClient } from '../../runtime/index.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { allCrds as peerPodCrds } from '../../peerpod/index.ts';
import { kvmCrds } from '../../kvm/index.ts';

/** Every CRD this package defines: the peer-pod and the kvm-operator APIs. */
export const allCrds = () => [...peerPodCrds(), ...kvmCrds()];
import { applyAll, deleteAll } from './apply.ts';
import { claimNamespaces, madeByDeploy } from './ownership.ts';
import { buildFiles, buildLayers, deployObjects } from './layers.ts';
import type { ExtraProvider, ManifestOptions } from './layers.ts';

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

export interface ClusterOpts {
  kubeconfig?: string;
  namespace: string;
  image: string;
  peerpodControllerArg?: string[];
  extraProvider?: ExtraProvider[];
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

/** `--kustomize DIR`: another project's layer (a scaffolded operator's config/crd or config/default) instead of ours. */
export interface KustomizeOpt {
  kustomize?: string;
}

async function kustomizeObjects(dir: string): Promise<KubeObject[]> {
  return (await import('./kustomize.ts')).readKustomize(dir);
}

export async function install(o: { kubeconfig?: string } & KustomizeOpt): Promise<void> {
  const crds = o.kustomize ? await kustomizeObjects(o.kustomize) : allCrds();
  await withClient(o, (c) => applyAll(c, crds, print));
}

export async function uninstall(o: { kubeconfig?: string } & KustomizeOpt): Promise<void> {
  const crds = o.kustomize ? await kustomizeObjects(o.kustomize) : allCrds();
  await withClient(o, (c) => deleteAll(c, crds, print));
}

export async function deploy(o: ClusterOpts & KustomizeOpt): Promise<void> {
  if (o.kustomize) {
    const objects = await kustomizeObjects(o.kustomize);
    await withClient(o, async (c) => applyAll(c, await claimNamespaces(c, objects, print), print));
    return;
  }
  const opts: ManifestOptions = {
    namespace: o.namespace,
    image: o.image,
    peerPodControllerArgs: o.peerpodControllerArg ?? [],
    extraProviders: o.extraProvider ?? [],
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
export async function undeploy(o: ClusterOpts & KustomizeOpt): Promise<void> {
  if (o.kustomize) {
    // As for our own layers: CRDs stay (uninstall removes them), a namespace only if deploy made it.
    const objects = (await kustomizeObjects(o.kustomize)).filter((obj) => obj.kind !== 'CustomResourceDefinition');
    const onlyIf = (live: KubeObject) => live.kind !== 'Namespace' || madeByDeploy(live);
    await withClient(o, (c) => deleteAll(c, objects, print, { onlyIf }));
    return;
  }
  const l = buildLayers({ namespace: o.namespace, image: o.image, extraProviders: o.extraProvider ?? [] });
  await withClient(o, (c) => deleteAll(c, [...l.rbac, ...l.manager], print, { onlyIf: madeByDeploy }));
}
