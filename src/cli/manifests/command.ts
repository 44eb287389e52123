// `peerpods manifests | install | uninstall | deploy | undeploy`: their flags, registered without
// loading the layers or a client; each action imports operations.ts when it runs (see program.ts).
import { InvalidArgumentError } from 'commander';
import type { Command } from 'commander';
import { DEFAULT_IMAGE, DEFAULT_NAMESPACE } from './defaults.ts';
import type { ExtraProvider } from './layers.ts';
import type { ClusterOpts, KustomizeOpt } from './operations.ts';

/** `RUNTIMECLASS[:CONFIGMAP:SECRET]`, as a PeerPodConfig's runtimeClassName, configMapName, cloudSecretName. */
export function parseExtraProvider(value: string): ExtraProvider {
  const [runtimeClassName, configMap, secret, ...rest] = value.split(':');
  const dns = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
  if (rest.length > 0 || configMap === '' || secret === '' || (configMap !== undefined && secret === undefined))
    throw new InvalidArgumentError('expected RUNTIMECLASS or RUNTIMECLASS:CONFIGMAP:SECRET');
  for (const n of [runtimeClassName, configMap, secret])
    if (n !== undefined && (!dns.test(n) || n.length > 253))
      throw new InvalidArgumentError(`"${n}" is not a valid object name (lowercase letters, digits, '-' and '.')`);
  return { runtimeClassName, ...(configMap ? { configMap, secret } : {}) };
}

export function registerManifestCommands(program: Command): void {
  const cluster = (cmd: Command) =>
    cmd
      .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
      .option('--namespace <ns>', 'namespace of the operator', DEFAULT_NAMESPACE)
      .option('--image <ref>', 'operator image', DEFAULT_IMAGE)
      .option(
        '-k, --kustomize <dir>',
        "use this kustomize directory instead of peerpods' own layers (e.g. a scaffolded project's config/default)",
      );

  const extraProvider = (cmd: Command) =>
    cmd.option(
      '--extra-provider <runtimeClass[:configMap:secret]>',
      "a further provider's PeerPodConfig: Roles for its adaptor DaemonSet and, when named, its own ConfigMap and Secret (repeatable)",
      (v: string, prev: ExtraProvider[]) => [...prev, parseExtraProvider(v)],
      [],
    );

  extraProvider(program.command('manifests'))
    .description('write the kustomize layers (crd, rbac, manager, samples, default) generated from code')
    .option('-o, --output <dir>', 'output directory', 'config')
    .option('--namespace <ns>', 'namespace of the operator', DEFAULT_NAMESPACE)
    .option('--image <ref>', 'operator image', DEFAULT_IMAGE)
    .action(async (o: { output: string; namespace: string; image: string; extraProvider: ExtraProvider[] }) => {
      const { writeManifests } = await import('./operations.ts');
      const written = await writeManifests(o.output, {
        namespace: o.namespace,
        image: o.image,
        extraProviders: o.extraProvider,
      });
      console.log(`wrote ${written.length} files under ${o.output}/`);
    });
  program
    .command('install')
    .description('apply the CRDs to the current kubeconfig context')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option(
      '-k, --kustomize <dir>',
      "apply this kustomize directory instead of peerpods' own manifests (e.g. a scaffolded project's config/crd)",
    )
    .action(async (o: { kubeconfig?: string; kustomize?: string }) => (await import('./operations.ts')).install(o));
  program
    .command('uninstall')
    .description('delete the CRDs (and with them every PeerPod)')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('-k, --kustomize <dir>', 'delete the CRDs of this kustomize directory')
    .action(async (o: { kubeconfig?: string; kustomize?: string }) => (await import('./operations.ts')).uninstall(o));
  extraProvider(
    cluster(program.command('deploy').description('apply config/default: CRDs, RBAC, the controller Deployment')),
  )
    .option(
      '--peerpod-controller-arg <flag>',
      "a flag added to the PeerPod controller's container args, e.g. --orphan-grace=30s (repeatable)",
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .action(async (o: ClusterOpts & KustomizeOpt) => (await import('./operations.ts')).deploy(o));
  extraProvider(
    cluster(
      program
        .command('undeploy')
        .description('delete what deploy created, except the CRDs and a namespace it did not create'),
    ),
  ).action(async (o: ClusterOpts & KustomizeOpt) => (await import('./operations.ts')).undeploy(o));
}
