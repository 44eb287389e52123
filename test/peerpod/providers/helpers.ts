// Shared bits of the provider suites: silent logger, temp dirs, waiting on conditions.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { CreateInstanceRequest } from '../../../src/peerpod/providers/types.ts';

export const silent = pino({ level: 'silent' });

export function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `${prefix}-`));
}

export function request(
  podName: string,
  sandboxId: string,
  extra: Partial<CreateInstanceRequest> = {},
): CreateInstanceRequest {
  return { podName, podNamespace: 'default', sandboxId, vcpus: 1, memoryMiB: 64, tags: {}, ...extra };
}
