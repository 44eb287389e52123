// Child of bench/storage.ts: fills a durable store in argv[2] with argv[3] ConfigMaps of about
// argv[4] bytes, prints `filled <revision>` and waits to be SIGKILLed (its WAL not checkpointed,
// as after a crash).
import { SqliteStorage } from '../../src/kube/index.ts';

const [dir, count, bytes] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const storage = new SqliteStorage(dir);
const value = 'x'.repeat(bytes);
for (let i = 0; i < count; i++) {
  const name = `cm-${i}`;
  storage.create(`/core/configmaps/ns-${i % 100}/${name}`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: `ns-${i % 100}`, uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}` },
    data: { value },
  });
}
process.stdout.write(`filled ${storage.currentRevision()}\n`);
setInterval(() => undefined, 60_000);
