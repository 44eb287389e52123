// A pod's volumes materialised under `<podDir>/volumes/<name>`: the volume manager's part of the
// kubelet. API-backed volumes (configMap, secret, downwardAPI, projected) are written with the
// AtomicWriter and can be rewritten when what they come from changes; emptyDir is a directory;
// hostPath is a path on the simulated node. Other volume types cannot be provided here.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../../../../apimachinery/meta/index.ts';
import { goQuote } from '../../../../apimachinery/strings/index.ts';
import { ContainerConfigError } from '../container-config.ts';
import { writeAtomically } from './atomic-writer.ts';
import { nodeRootfs, setUpHostPath } from './host-path.ts';
import {
  DEFAULT_MODE,
  configMapPayload,
  downwardAPIPayload,
  projectedPayload,
  secretPayload,
  type Computed,
  type PayloadContext,
} from './payloads.ts';

export interface PodVolume {
  name: string;
  /** Where the volume's content is on this machine. */
  path: string;
  /** API-backed volumes are always mounted read-only, as kube's mustMountRO. */
  readOnly: boolean;
  /** API-backed: a subPath into it is a copy taken at container start, never refreshed. */
  atomic: boolean;
  /** Storage keys whose changes call for `refresh`. */
  deps: string[];
  /** Rewrites the content from the API (API-backed volumes only); returns whether it changed. */
  refresh?: (ctx: PayloadContext) => boolean;
}

const SUPPORTED = 'configMap, secret, emptyDir, downwardAPI, projected and hostPath';

function apiBacked(
  name: string,
  path: string,
  compute: (ctx: PayloadContext) => Computed,
  ctx: PayloadContext,
): PodVolume {
  const first = compute(ctx);
  writeAtomically(path, first.payload);
  const volume: PodVolume = { name, path, readOnly: true, atomic: true, deps: first.deps };
  volume.refresh = (next) => {
    const c = compute(next);
    volume.deps = c.deps;
    return writeAtomically(path, c.payload);
  };
  return volume;
}

function setUpVolume(volume: JsonObject, podDir: string, stateDir: string, ctx: PayloadContext): PodVolume {
  const name = String(volume.name ?? '');
  const path = join(podDir, 'volumes', name);
  const nodeName = String((ctx.pod.spec as JsonObject | undefined)?.nodeName ?? '');
  const source = (key: string) => volume[key] as JsonObject;
  const mode = (s: JsonObject) => (typeof s.defaultMode === 'number' ? s.defaultMode : DEFAULT_MODE);
  if (volume.configMap)
    return apiBacked(name, path, (c) => configMapPayload(source('configMap'), mode(source('configMap')), c), ctx);
  if (volume.secret)
    return apiBacked(name, path, (c) => secretPayload(source('secret'), mode(source('secret')), c), ctx);
  if (volume.downwardAPI) {
    const items = (source('downwardAPI').items ?? []) as JsonObject[];
    return apiBacked(name, path, (c) => downwardAPIPayload(items, mode(source('downwardAPI')), c), ctx);
  }
  if (volume.projected) return apiBacked(name, path, (c) => projectedPayload(source('projected'), c), ctx);
  if (volume.emptyDir) {
    mkdirSync(path, { recursive: true, mode: 0o777 });
    return { name, path, readOnly: false, atomic: false, deps: [] };
  }
  if (volume.hostPath) {
    const real = setUpHostPath(source('hostPath'), nodeRootfs(stateDir, nodeName));
    return { name, path: real, readOnly: false, atomic: false, deps: [] };
  }
  const kind = Object.keys(volume).find((k) => k !== 'name') ?? 'unknown';
  throw new ContainerConfigError(`${kind} volumes are not supported by the process runtime (only ${SUPPORTED})`);
}

/** Sets up every volume of `volumes`; the first that fails stops it, as a failed mount holds the pod. */
export function setUpPodVolumes(
  volumes: JsonObject[],
  podDir: string,
  stateDir: string,
  ctx: PayloadContext,
): Map<string, PodVolume> {
  const out = new Map<string, PodVolume>();
  for (const volume of volumes) {
    const name = String(volume.name ?? '');
    try {
      out.set(name, setUpVolume(volume, podDir, stateDir, ctx));
    } catch (e) {
      if (!(e instanceof ContainerConfigError)) throw e;
      // The text of kube's FailedMount event.
      throw new ContainerConfigError(`MountVolume.SetUp failed for volume ${goQuote(name)} : ${e.message}`);
    }
  }
  return out;
}
