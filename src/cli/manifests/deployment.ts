// The Deployment of an operator that `peerpods run <operator>` starts: one leader-elected replica,
// probes on the manager's health port, a locked-down container. Shared by the generated manifests.
import type { KubeObject } from '../../runtime/index.ts';

export const PROBE_PORT = 8081;
export const READINESS_PERIOD_SECONDS = 2;

export interface OperatorDeploymentSpec {
  name: string;
  namespace: string;
  image: string;
  serviceAccountName: string;
  /** Labels of the Deployment (the selector is added to them). */
  labels: Record<string, string>;
  selector: Record<string, string>;
  /** The `run` subcommand, e.g. "kvm-operator". */
  operator: string;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  /** Flags after the common ones. */
  extraArgs?: string[];
}

export function operatorDeployment(o: OperatorDeploymentSpec): KubeObject {
  const probe = (path: string, periodSeconds: number) => ({ httpGet: { path, port: PROBE_PORT }, periodSeconds });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: o.name, namespace: o.namespace, labels: { ...o.labels, ...o.selector } },
    spec: {
      replicas: 1,
      selector: { matchLabels: o.selector },
      template: {
        metadata: { labels: o.selector },
        spec: {
          serviceAccountName: o.serviceAccountName,
          securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'manager',
              image: o.image,
              args: [
                'run',
                o.operator,
                '--leader-elect',
                `--health-probe-bind-address=:${PROBE_PORT}`,
                ...(o.extraArgs ?? []),
              ],
              env: [{ name: 'PEERPODS_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
              ports: [{ name: 'probes', containerPort: PROBE_PORT, protocol: 'TCP' }],
              livenessProbe: probe('/healthz', 10),
              // Checked often: a new replica takes traffic (and a rollout moves on) seconds after it
              // is ready, not at the next 10 s tick; /readyz is a cheap in-process check.
              readinessProbe: probe('/readyz', READINESS_PERIOD_SECONDS),
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              resources: o.resources,
            },
          ],
        },
      },
    },
  };
}
