// A container's volumeMounts as host paths, as kubelet's makeMounts (pkg/kubelet/kubelet_pods.go).
// A subPath into an API-backed volume is a copy taken now under
// `<podDir>/volume-subpaths/<volume>/<container>/<index>`: kube bind-mounts the file as it is at
// container start, so later ConfigMap/Secret updates never reach it (the next container start
// takes a new copy). A subPath into emptyDir or hostPath is the live path.
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, posix } from 'node:path';
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { goQuote } from '../../../../apimachinery/strings/index.ts';
import { ContainerConfigError, type VolumeMount } from '../container-config.ts';
import { expand, mappingFuncFor } from '../expansion.ts';
import type { PodVolume } from './pod-volumes.ts';

function cleanMountPath(path: string): string {
  const clean = posix.normalize(path);
  return clean.length > 1 ? clean.replace(/\/+$/, '') : clean;
}

function subPathOf(mount: JsonObject, env: Record<string, string>): string {
  if (typeof mount.subPathExpr === 'string' && mount.subPathExpr !== '')
    return expand(mount.subPathExpr, mappingFuncFor(env));
  return typeof mount.subPath === 'string' ? mount.subPath : '';
}

export function makeMounts(
  container: JsonObject,
  volumes: ReadonlyMap<string, PodVolume>,
  podDir: string,
  env: Record<string, string>,
): VolumeMount[] {
  const containerName = String(container.name ?? '');
  return ((container.volumeMounts ?? []) as JsonObject[]).map((mount, index) => {
    const volume = volumes.get(String(mount.name ?? ''));
    if (!volume)
      throw new ContainerConfigError(
        `cannot find volume ${goQuote(String(mount.name ?? ''))} to mount into container ${goQuote(containerName)}`,
      );
    const readOnly = mount.readOnly === true || volume.readOnly;
    const mountPath = cleanMountPath(String(mount.mountPath ?? ''));
    const subPath = subPathOf(mount, env);
    if (subPath === '') return { mountPath, hostPath: volume.path, readOnly };
    if (subPath.startsWith('/'))
      throw new ContainerConfigError(`error SubPath \`${subPath}\` must not be an absolute path`);
    if (subPath.split('/').includes('..'))
      throw new ContainerConfigError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
    const inside = join(volume.path, subPath);
    if (!existsSync(inside)) mkdirSync(inside, { recursive: true });
    if (!volume.atomic) return { mountPath, hostPath: inside, readOnly };
    const copy = join(podDir, 'volume-subpaths', volume.name, containerName, String(index));
    rmSync(copy, { recursive: true, force: true });
    mkdirSync(join(copy, '..'), { recursive: true });
    cpSync(inside, copy, { recursive: true, dereference: true });
    return { mountPath, hostPath: copy, readOnly };
  });
}
