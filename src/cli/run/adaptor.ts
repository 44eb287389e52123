// `peerpods run adaptor --node NAME`: the node-side VM adaptor for one node, against the current
// kubeconfig context or in-cluster. Against a real cluster the kata shim's RuntimeClass hands the
// pods to it. Against the embedded control plane the simulated kubelets must be told to leave the
// runtime class alone: that needs the control plane's process (see the adaptor's
// `startEmbeddedAdaptors`, for the code that starts both).
import { createLogger } from '../../runtime/index.ts';
import { adaptor as peerPodAdaptor } from '../../peerpod/index.ts';
import { parseProvider } from './flags.ts';

export interface RunAdaptorOptions {
  node?: string;
  provider?: string;
  providerConfig: Record<string, string>;
  kubeconfig?: string;
  runtimeClass: string;
  namespace?: string;
  configMap?: string;
  secret?: string;
  maxConcurrentReconciles: number;
  healthProbeBindAddress: { host: string; port: number } | false;
}

/** Runs until SIGTERM/SIGINT; in-flight VM creates get the graceful shutdown period to finish. */
export async function runAdaptor(o: RunAdaptorOptions): Promise<void> {
  const nodeName = o.node || process.env.NODE_NAME;
  if (!nodeName) throw new Error('--node (or $NODE_NAME) is required: the node whose pods this adaptor runs');
  if (o.provider) parseProvider(o.provider);
  const logger = createLogger('peerpod-adaptor');
  const adaptor = await peerPodAdaptor.startAdaptor({
    nodeName,
    runtimeClassName: o.runtimeClass,
    ...(o.provider ? { providerName: o.provider } : {}),
    providerConfig: o.providerConfig,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.configMap ? { configMapName: o.configMap } : {}),
    ...(o.secret ? { secretName: o.secret } : {}),
    ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    logger,
    manager: { server: o.healthProbeBindAddress },
  });
  logger.info(
    {
      node: nodeName,
      runtimeClass: adaptor.options.runtimeClassName,
      provider:
        adaptor.providers.name() || `(CLOUD_PROVIDER in ${adaptor.options.namespace}/${adaptor.options.configMapName})`,
    },
    'starting the peer-pod adaptor',
  );
  await adaptor.done;
}
