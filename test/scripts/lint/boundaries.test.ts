import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '../../..');
const rule = 'peerpods/boundaries';
// The repository's own eslint.config.js, as `npm test` runs it, reporting this rule only.
const eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === rule });

/** The boundary errors for `code` placed at `filePath` (repo-relative). */
async function violations(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath, warnIgnored: true });
  assert.deepEqual(
    result.messages.filter((m) => m.ruleId !== rule),
    [],
    `${filePath} must be linted`,
  );
  return result.messages.map((m) => {
    assert.equal(m.severity, 2, 'a boundary break is an error, so eslint exits non-zero');
    return m.message;
  });
}

describe('import boundaries (eslint rule peerpods/boundaries)', () => {
  describe('reports imports that break the boundaries', () => {
    const cases: [file: string, code: string, message: RegExp][] = [
      [
        'src/kube/some-new-file.ts',
        "import { Manager } from '../runtime/index.ts';\nexport { Manager };",
        /^src\/kube may not import src\/runtime\/index\.ts: kube may import apimachinery and kube only$/,
      ],
      [
        'src/peerpod/adaptor/some-new-file.ts',
        "import { startControlPlane } from '../../kube/index.ts';\nexport { startControlPlane };",
        /^src\/peerpod may not import src\/kube\/index\.ts: .*never kube/,
      ],
      [
        'src/peerpod/adaptor/some-new-file.ts',
        "import { Informer } from '../../runtime/cache/informer.ts';\nexport { Informer };",
        /^src\/peerpod may not import src\/runtime\/cache\/informer\.ts: .*through src\/runtime\/index\.ts only/,
      ],
      [
        'src/kvm/some-new-file.ts',
        "export * from '../peerpod/index.ts';",
        /^src\/kvm may not import src\/peerpod\/index\.ts: .*never peerpod$/,
      ],
      [
        'src/cli/some-new-file.ts',
        "import { setup } from '../peerpod/adaptor/setup.ts';\nexport { setup };",
        /^src\/cli may not import src\/peerpod\/adaptor\/setup\.ts: cli .*public entries/,
      ],
      [
        'test/peerpod/some-new.test.ts',
        "import { isPodReady } from '../../src/kvm/pods.ts';\nexport { isPodReady };",
        /^test\/peerpod may not import src\/kvm\/pods\.ts: a part's tests /,
      ],
      [
        'src/apimachinery/some-new-file.ts',
        "import type { KubeObject } from '../kube/types.ts';\nexport type { KubeObject };",
        /^src\/apimachinery may not import src\/kube\/types\.ts: apimachinery imports nothing/,
      ],
      [
        'src/runtime/some-new-file.ts',
        "export const load = () => import('../kube/index.ts');",
        /^src\/runtime may not import src\/kube\/index\.ts/,
      ],
      [
        'src/runtime/some-new-file.ts',
        "export type Kube = typeof import('../kube/index.ts');",
        /^src\/runtime may not import src\/kube\/index\.ts/,
      ],
      [
        'src/kube/some-new-file.ts',
        "export { Manager } from 'peerpods/runtime';",
        /^src\/kube may not import src\/runtime\/index\.ts/,
      ],
      [
        'test/e2e/some-new.test.ts',
        "import { Informer } from '../../src/runtime/cache/informer.ts';\nexport { Informer };",
        /^test\/e2e may not import src\/runtime\/cache\/informer\.ts/,
      ],
      [
        'examples/some-example/main.ts',
        "import { Informer } from '../../src/runtime/cache/informer.ts';\nexport { Informer };",
        /^examples\/some-example may not import src\/runtime\/cache\/informer\.ts/,
      ],
    ];
    for (const [file, code, message] of cases) {
      it(`${file}: ${code.split('\n')[0]}`, async () => {
        const found = await violations(file, code);
        assert.equal(found.length, 1, found.join('\n'));
        assert.match(found[0], message);
      });
    }
  });

  describe('allows imports within the boundaries', () => {
    const cases: [file: string, code: string][] = [
      ['src/peerpod/adaptor/some-new-file.ts', "export { Manager } from '../../runtime/index.ts';"],
      ['src/kvm/some-new-file.ts', "export * from '../runtime/index.ts';\nexport * from './api/index.ts';"],
      ['src/kube/registry/some-new-file.ts', "export * from '../../apimachinery/meta/types.ts';"],
      ['src/peerpod/some-new-file.ts', "export * from '../apimachinery/quantity.ts';"],
      ['test/kvm/some-new.test.ts', "export * from '../../src/apimachinery/status.ts';"],
      ['test/kube/registry/some-new.test.ts', "export * from '../../../src/kube/registry/store.ts';"],
      [
        'test/kube/some-new.test.ts',
        "export * from '../helpers/control-plane.ts';\nexport * from './apply/helpers.ts';",
      ],
      ['test/runtime/some-new.test.ts', "export { startControlPlane } from '../../src/kube/index.ts';"],
      ['src/cli/some-new-file.ts', "export * from '../kvm/index.ts';\nexport * from './main.ts';"],
      ['test/e2e/some-new.test.ts', "export * from '../helpers/kubectl.ts';\nexport * from './helpers.ts';"],
      ['examples/some-example/main.ts', "export * from '../../src/runtime/index.ts';\nexport * from './api.ts';"],
      ['src/kube/some-new-file.ts', "import { readFile } from 'node:fs/promises';\nexport { readFile };"],
      ['bench/some-new-bench.ts', "export * from '../src/runtime/cache/informer.ts';"],
    ];
    for (const [file, code] of cases) {
      it(`${file}: ${code.split('\n')[0]}`, async () => {
        assert.deepEqual(await violations(file, code), []);
      });
    }
  });

  it('a bad import fails the lint step of `npm test`', () => {
    const script = readFileSync(path.join(root, 'scripts/test.sh'), 'utf8');
    assert.match(script, /^set -euo pipefail$/m);
    assert.match(script, /npx eslint \. ;/);
    const run = spawnSync('npx', ['eslint', '--stdin', '--stdin-filename', 'src/kube/some-new-file.ts'], {
      cwd: root,
      input: "export { Manager } from '../runtime/index.ts';\n",
      encoding: 'utf8',
    });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /src\/kube may not import src\/runtime\/index\.ts/);
  });

  it('the tree keeps the boundaries', async () => {
    const results = await eslint.lintFiles(['src', 'test', 'examples']);
    const broken = results.flatMap((r) =>
      r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.message.replace(/:.*/, '')}`),
    );
    assert.deepEqual(broken, []);
  });
});
