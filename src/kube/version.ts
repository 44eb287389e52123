// The Kubernetes version this control plane reports: /version, discovery, the OpenAPI documents and
// the kubelet version of simulated nodes all name the same one.
export const KUBE_VERSION = { major: '1', minor: '33', gitVersion: 'v1.33.0-peerpods' };
