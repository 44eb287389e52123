// The object every storage backend's tests write: a small ConfigMap in `default`, and its key.
import type { KubeObject } from '../../../src/apimachinery/meta/index.ts';

export const cm = (name: string, data = '1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { v: data },
});

export const key = (name: string): string => `/core/configmaps/default/${name}`;
