// `peerpods run <operator>`: every operator's flags, registered without loading any operator; each
// action imports its operator when it runs (see program.ts).
import { Option } from 'commander';
import type { Command } from 'commander';
import {
  DEFAULT_ADAPTOR_IMAGE,
  DEFAULT_CAPACITY_RECHECK_MS,
  DEFAULT_MAX_CONCURRENT_DELETES,
  DEFAULT_MAX_CONCURRENT_RECONCILES,
  DEFAULT_WEBHOOK_IMAGE,
  KNOWN_PROVIDERS,
  LEADER_ELECTION_ID,
  adaptor as peerPodAdaptor,
  webhook,
} from '../../peerpod/defaults.ts';
import { KVM_DEFAULTS, KVM_LEADER_ELECTION_ID } from '../../kvm/defaults.ts';
import { PEERPODCONFIG_LEADER_ELECTION_ID, durationOption, healthProbeOption, parsePositiveInt } from '../options.ts';
import {
  parseDropMode,
  parseKeyValue,
  parseList,
  parseMaxMemory,
  parseMaxVcpus,
  parseProvider,
  parseRoute,
  parseWebhookPort,
  positiveDuration,
} from './flags.ts';
import type { RunAdaptorOptions } from './adaptor.ts';
import type { RunKvmOperatorOptions } from './kvm.ts';
import type { RunPeerPodOptions } from './peerpod.ts';
import type { RunPeerPodConfigOptions } from './peerpodconfig.ts';
import type { RunWebhookOptions } from './webhook.ts';

type DropMode = webhook.DropMode;

export function registerRunCommands(program: Command): void {
  const run = program
    .command('run')
    .description('run an operator against the current kubeconfig context or in-cluster');
  run
    .command('peerpod-controller')
    .description('delete the VMs of dangling PeerPods, release their finalizers, and sweep orphan VMs')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--namespace <ns>', 'where peer-pods-cm and peer-pods-secret live (default: $PEERPODS_NAMESPACE)')
    .option('--dry-run', 'the orphan sweep only reports (event, log, metric); it deletes nothing')
    .addOption(durationOption('--orphan-grace <duration>', 'age before an unnamed VM counts as an orphan', 600_000))
    .addOption(durationOption('--sweep-interval <duration>', 'orphan sweep interval (0 disables the sweep)', 60_000))
    .option(
      '--max-concurrent-deletes <n>',
      'deletes in flight per provider',
      parsePositiveInt,
      DEFAULT_MAX_CONCURRENT_DELETES,
    )
    .option('--max-concurrent-reconciles <n>', 'workers', parsePositiveInt, DEFAULT_MAX_CONCURRENT_RECONCILES)
    .option('--leader-elect', `elect a leader through the Lease ${LEADER_ELECTION_ID}`)
    .addOption(healthProbeOption('peerpod-controller'))
    .action(async (o: RunPeerPodOptions) => (await import('./peerpod.ts')).runPeerPodController(o));
  run
    .command('peerpodconfig-controller')
    .description('advertise pod VM capacity on nodes; deploy the adaptor DaemonSet and the pod webhook')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option(
      '--namespace <ns>',
      'the only namespace whose PeerPodConfigs it honours, and of its Lease (default: $PEERPODS_NAMESPACE)',
    )
    .option('--extended-resource <name>', 'node resource one pod VM takes', webhook.DEFAULT_EXTENDED_RESOURCE)
    .addOption(
      new Option('--adaptor-image <ref>', 'adaptor image').default(
        process.env.RELATED_IMAGE_CAA || DEFAULT_ADAPTOR_IMAGE,
        `$RELATED_IMAGE_CAA, else ${DEFAULT_ADAPTOR_IMAGE}`,
      ),
    )
    .option('--no-deploy-adaptor', 'do not deploy the adaptor DaemonSet')
    .option('--no-webhook', 'do not deploy the webhook (someone else does, e.g. a Helm chart)')
    .option('--webhook-image <ref>', 'image running `peerpods run webhook`', DEFAULT_WEBHOOK_IMAGE)
    .option('--max-concurrent-reconciles <n>', 'workers', parsePositiveInt, 1)
    .option('--no-capacity', "advertise the configured limit without asking what the provider's host or quota holds")
    .addOption(
      durationOption(
        '--capacity-recheck-interval <duration>',
        "how often the provider's capacity is asked again",
        DEFAULT_CAPACITY_RECHECK_MS,
      ),
    )
    .option('--leader-elect', `elect a leader through the Lease ${PEERPODCONFIG_LEADER_ELECTION_ID}`)
    .addOption(healthProbeOption('peerpodconfig-controller'))
    .action(async (o: RunPeerPodConfigOptions) => (await import('./peerpodconfig.ts')).runPeerPodConfigController(o));
  run
    .command('webhook')
    .description('the peer-pods pod mutating webhook (runtime class -> kata.peerpods.io/vm + VM size annotations)')
    .option('--port <port>', 'HTTPS port of /mutate-v1-pod', parseWebhookPort, 9443)
    .option('--host <addr>', 'address to listen on (0.0.0.0 inside a pod, so the API server reaches it)', '127.0.0.1')
    .option(
      '--cert-dir <dir>',
      'directory with tls.crt and tls.key (reloaded on change)',
      '/tmp/k8s-webhook-server/serving-certs',
    )
    .option(
      '--drop-resources <mode>',
      'upstream: clear every container resource; preserve: keep ephemeral-storage and extended resources, deny hugepages',
      parseDropMode,
      'upstream' as DropMode,
    )
    .option(
      '--target-runtime-class <name>',
      'runtime class to mutate (env TARGET_RUNTIMECLASS)',
      process.env.TARGET_RUNTIMECLASS || webhook.DEFAULT_RUNTIME_CLASS,
    )
    .option(
      '--extended-resource <name>',
      'node resource one pod VM takes (env POD_VM_EXTENDED_RESOURCE)',
      process.env.POD_VM_EXTENDED_RESOURCE || webhook.DEFAULT_EXTENDED_RESOURCE,
    )
    .option(
      '--runtime-class-resource <RUNTIMECLASS=RESOURCE>',
      "another provider's runtime class and the node resource its pod VMs take (repeatable)",
      parseRoute,
      {},
    )
    .option(
      '--max-vcpus <n>',
      'the largest VM a pod may ask for, in vCPUs (summed cpu of its containers); larger pods are denied',
      parseMaxVcpus,
      webhook.DEFAULT_MAX_VCPUS,
    )
    .addOption(
      new Option(
        '--max-memory <quantity>',
        'the largest VM memory a pod may ask for (e.g. 512Gi); larger pods are denied',
      )
        .argParser(parseMaxMemory)
        .default(webhook.DEFAULT_MAX_MEMORY_MIB, '32Ti'),
    )
    .addOption(healthProbeOption('webhook'))
    .action(async (o: RunWebhookOptions) => (await import('./webhook.ts')).runWebhook(o));
  run
    .command('adaptor')
    .description("create and delete the VMs of the peer pods bound to one node (the node's cloud-api-adaptor)")
    .option('--node <name>', 'the node whose pods to run (default: $NODE_NAME)')
    .option(
      '--provider <name>',
      `cloud provider (${KNOWN_PROVIDERS.join('|')}; default: CLOUD_PROVIDER from the peer-pods-cm ConfigMap)`,
      parseProvider,
    )
    .option(
      '--provider-config <KEY=VALUE>',
      'a provider setting that wins over peer-pods-cm / peer-pods-secret (repeatable)',
      parseKeyValue,
      {},
    )
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--runtime-class <name>', 'runtime class of the pods to run in VMs', peerPodAdaptor.DEFAULT_RUNTIME_CLASS)
    .option('--namespace <ns>', 'where peer-pods-cm and peer-pods-secret live (default: $PEERPODS_NAMESPACE)')
    .option('--config-map <name>', "the provider's settings ConfigMap", peerPodAdaptor.DEFAULT_CONFIGMAP)
    .option('--secret <name>', "the provider's credentials Secret", peerPodAdaptor.DEFAULT_SECRET)
    .option(
      '--max-concurrent-reconciles <n>',
      'pods handled at once (VM creates in flight)',
      parsePositiveInt,
      peerPodAdaptor.DEFAULT_MAX_CONCURRENT_RECONCILES,
    )
    .addOption(healthProbeOption('adaptor'))
    .action(async (o: RunAdaptorOptions) => (await import('./adaptor.ts')).runAdaptor(o));
  run
    .command('kvm-operator')
    .description('run workload clusters whose nodes are KVM VMs in pods (KVMConfig, Release, DrainerConfig)')
    .option('--kubeconfig <file>', 'kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)')
    .option('--namespace <ns>', 'namespace of the leader-election Lease (default: $PEERPODS_NAMESPACE)')
    .option(
      '--operator-version <semver>',
      'handle KVMConfigs labelled kvm-operator.giantswarm.io/version=<semver>',
      KVM_DEFAULTS.version,
    )
    .option('--kvmconfig-namespace <ns>', 'where KVMConfigs live', KVM_DEFAULTS.kvmConfigNamespace)
    .option('--cluster-role-general <name>', 'ClusterRole bound to each cluster', KVM_DEFAULTS.clusterRoleGeneral)
    .option('--cluster-role-psp <name>', 'ClusterRole bound for pod security', KVM_DEFAULTS.clusterRolePsp)
    .option('--dns-servers <list>', 'DNS servers of the VMs', parseList, KVM_DEFAULTS.dnsServers)
    .option('--ntp-servers <list>', 'NTP servers of the VMs', parseList, KVM_DEFAULTS.ntpServers)
    .option('--terminate-unhealthy-nodes', 'replace unhealthy nodes of every cluster, not only annotated ones')
    .addOption(
      durationOption(
        '--unhealthy-node-after <duration>',
        'NotReady time before a node is replaced',
        KVM_DEFAULTS.unhealthyNodeAfterMs,
        positiveDuration,
      ),
    )
    .addOption(
      durationOption(
        '--drain-timeout <duration>',
        'time a drain may take',
        KVM_DEFAULTS.drainTimeoutMs,
        positiveDuration,
      ),
    )
    .addOption(
      durationOption(
        '--resync <duration>',
        'resync period of the controllers',
        KVM_DEFAULTS.resyncMs,
        positiveDuration,
      ),
    )
    .option('--no-node-drainer', 'do not execute DrainerConfigs (another node-operator does)')
    .option('--leader-elect', `elect a leader through the Lease ${KVM_LEADER_ELECTION_ID}`)
    .addOption(healthProbeOption('kvm-operator'))
    .action(async (o: RunKvmOperatorOptions) => (await import('./kvm.ts')).runKvmOperator(o));
}
