// The parts of apps/v1 Deployment and core/v1 Pod the node deployments set and read. Objects read
// back from the API server carry more (server defaults); only these fields are ours.
import type { KubeObject } from '../../../runtime/index.ts';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef: { apiVersion?: string; fieldPath: string } };
}
export interface HttpProbe {
  httpGet: { path: string; port: number; host: string };
  initialDelaySeconds: number;
  timeoutSeconds: number;
  periodSeconds: number;
  failureThreshold: number;
  successThreshold: number;
}
export interface Container {
  name: string;
  image: string;
  imagePullPolicy: 'Always' | 'IfNotPresent';
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  securityContext?: { privileged: boolean };
  lifecycle?: { preStop: { exec: { command: string[] } } };
  livenessProbe?: HttpProbe;
  readinessProbe?: HttpProbe;
  resources?: { requests: Record<string, string>; limits: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
}
export interface Volume {
  name: string;
  configMap?: { name: string };
  hostPath?: { path: string };
  emptyDir?: Record<string, never>;
  persistentVolumeClaim?: { claimName: string };
}
export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations: Record<string, string> };
  spec: {
    hostNetwork: boolean;
    nodeSelector: Record<string, string>;
    serviceAccountName: string;
    terminationGracePeriodSeconds: number;
    affinity: unknown;
    volumes: Volume[];
    containers: Container[];
  };
}
export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
}
export interface Deployment extends KubeObject {
  spec: {
    replicas: number;
    strategy: { type: 'Recreate' };
    selector: { matchLabels: Record<string, string> };
    template: PodTemplate;
  };
  status?: DeploymentStatus;
}
