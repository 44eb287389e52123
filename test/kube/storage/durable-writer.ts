// Child process of sqlite.test.ts: opens the store in argv[2] and creates ConfigMaps as fast as it
// can, printing `ack <name> <revision>` after each create returned — a write the caller may rely
// on — until it is killed. `ready <pid>` comes first, once the store is open.
import { SqliteStorage } from '../../../src/kube/storage/index.ts';

const storage = new SqliteStorage(process.argv[2]);
process.stdout.write(`ready ${process.pid}\n`);
for (let i = 0; ; i++) {
  const name = `cm-${i}`;
  const stored = storage.create(`/core/configmaps/default/${name}`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { i: String(i) },
  });
  // Synchronous, so the line is out before the next write starts.
  process.stdout.write(`ack ${name} ${stored.revision}\n`);
  if (i % 100 === 99) await new Promise((r) => setImmediate(r));
}
