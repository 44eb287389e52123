// Real kubectl against the served OpenAPI: create/apply with validation on (the default), client-
// and server-side apply, server dry runs, CRDs and their resources, explain, and strict field
// validation. Each kubectl version works in its own namespace and CRD group, concurrently.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startTestCluster, type TestCluster } from '../../../helpers/control-plane.ts';
import { kubectl, type RunResult } from '../../../helpers/kubectl.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON output, probed field by field
type Obj = Record<string, any>;

/** undefined: the /usr/bin/kubectl dispatcher, which picks a version matching the server. */
const VERSIONS: Array<string | undefined> = [undefined, '1.27', '1.33'];

let cp: TestCluster;
before(async () => {
  cp = await startTestCluster();
});
after(async () => {
  await cp?.stop();
});

const configMap = (ns: string, name: string, extra = ''): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${ns}
data:
  greeting: hello
${extra}`;

const deployment = (ns: string, name: string, image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
  labels: {app: ${name}}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: ${image}
        ports:
        - containerPort: 8080
        env:
        - {name: MODE, value: demo}
`;

const crd = (group: string): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: Gadget is a test custom resource.
        properties:
          spec:
            type: object
            description: Desired state of the gadget.
            properties:
              size: {type: integer, description: How big the gadget is.}
              color: {type: string, enum: [red, blue]}
`;

for (const version of VERSIONS) {
  const label = version ?? 'dispatcher';
  const ns = `oa-${label.replace('.', '')}`;
  const group = `${label.replace('.', '')}.openapi.example.com`;

  describe(`kubectl ${label}`, { concurrency: false }, () => {
    const run = (args: string[], input?: string): Promise<RunResult> =>
      kubectl(cp.kubeconfigPath, args, { version, input });
    const ok = async (args: string[], input?: string): Promise<string> => {
      const r = await run(args, input);
      assert.equal(r.code, 0, `kubectl ${label} ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    const getObj = async (...args: string[]): Promise<Obj> =>
      JSON.parse(await ok(['get', '-n', ns, ...args, '-o', 'json'])) as Obj;

    before(async () => {
      await ok(['create', 'namespace', ns]);
    });

    test('create -f of a ConfigMap and a Deployment, validation on', async () => {
      assert.match(await ok(['create', '-f', '-'], configMap(ns, 'created')), /configmap\/created created/);
      assert.match(
        await ok(['create', '-f', '-'], deployment(ns, 'created', 'nginx:1.26')),
        /deployment.apps\/created created/,
      );
      assert.equal((await getObj('deployment', 'created')).spec.template.spec.containers[0].image, 'nginx:1.26');
    });

    test('apply -f converges: twice unchanged, then an image change is patched', async () => {
      assert.match(await ok(['apply', '-f', '-'], configMap(ns, 'applied')), /configmap\/applied created/);
      assert.match(await ok(['apply', '-f', '-'], configMap(ns, 'applied')), /configmap\/applied unchanged/);
      assert.match(
        await ok(['apply', '-f', '-'], deployment(ns, 'applied', 'nginx:1.26')),
        /deployment.apps\/applied created/,
      );
      assert.match(
        await ok(['apply', '-f', '-'], deployment(ns, 'applied', 'nginx:1.26')),
        /deployment.apps\/applied unchanged/,
      );
      const r = await run(['apply', '-f', '-'], deployment(ns, 'applied', 'nginx:1.27'));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /deployment.apps\/applied configured/);
      assert.doesNotMatch(r.stderr, /warning/i);
      const d = await getObj('deployment', 'applied');
      assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.27');
      assert.deepEqual(d.spec.template.spec.containers[0].env, [{ name: 'MODE', value: 'demo' }]);
      assert.equal(d.metadata.generation, 2);
      assert.match(await ok(['apply', '-f', '-'], deployment(ns, 'applied', 'nginx:1.27')), /unchanged/);
    });

    test('apply --dry-run=server persists nothing', async () => {
      assert.match(
        await ok(['apply', '--dry-run=server', '-f', '-'], configMap(ns, 'dry')),
        /configmap\/dry created \(server dry run\)/,
      );
      const r = await run(['get', '-n', ns, 'configmap', 'dry']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /not found/);
    });

    test('apply --server-side creates and updates', async () => {
      assert.match(
        await ok(['apply', '--server-side', '-f', '-'], configMap(ns, 'ssa')),
        /configmap\/ssa serverside-applied/,
      );
      await ok(['apply', '--server-side', '-f', '-'], configMap(ns, 'ssa').replace('hello', 'bonjour'));
      assert.deepEqual((await getObj('configmap', 'ssa')).data, { greeting: 'bonjour' });
    });

    test('create -f of a CRD, then of a custom resource; explain shows its schema', async () => {
      await ok(['create', '-f', '-'], crd(group));
      await eventually(async () => (await run(['get', '-n', ns, `gadgets.${group}`])).code === 0, {
        what: 'the CRD to be served',
        timeoutMs: 15_000,
      });
      const gadget = `apiVersion: ${group}/v1\nkind: Gadget\nmetadata: {name: g1, namespace: ${ns}}\nspec: {size: 3, color: red}\n`;
      assert.match(await ok(['create', '-f', '-'], gadget), /gadget.*\/g1 created/);
      assert.equal((await getObj(`gadgets.${group}`, 'g1')).spec.size, 3);
      assert.match(await ok(['apply', '-f', '-'], gadget.replace('size: 3', 'size: 4')), /configured/);
      assert.equal((await getObj(`gadgets.${group}`, 'g1')).spec.size, 4);

      const out = await ok(['explain', `gadgets.${group}`]);
      assert.match(out, /KIND:\s+Gadget/);
      assert.match(out, /Gadget is a test custom resource/);
      assert.match(out, /spec\s+<Object>/);
      assert.match(await ok(['explain', `gadgets.${group}.spec.size`]), /How big the gadget is/);
    });

    test('explain pods and pods.spec.containers', async () => {
      const pods = await ok(['explain', 'pods']);
      assert.match(pods, /KIND:\s+Pod/);
      assert.match(pods, /spec\s+<PodSpec>/);
      assert.match(pods, /collection of containers/);
      const containers = await ok(['explain', 'pods.spec.containers']);
      assert.match(containers, /FIELD: containers <\[\]Container>/);
      assert.match(containers, /image\s+<string>/);
      assert.match(containers, /name\s+<string> -required-/);
      assert.match(await ok(['explain', 'deployments.spec.strategy.type']), /FIELD: type <string>[\s\S]*Strategy type/);
    });

    test('--validate=strict rejects an unknown ConfigMap field on the server', async () => {
      const r = await run(['apply', '--validate=strict', '-f', '-'], configMap(ns, 'strict', 'datta:\n  x: y\n'));
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /strict decoding error: unknown field "datta"/);
      assert.notEqual((await run(['get', '-n', ns, 'configmap', 'strict'])).code, 0);
      const warn = await run(['create', '--validate=warn', '-f', '-'], configMap(ns, 'warned', 'datta:\n  x: y\n'));
      assert.equal(warn.code, 0, warn.stderr);
      assert.match(warn.stderr, /unknown field "datta"/);
      assert.equal((await getObj('configmap', 'warned')).datta, undefined);
    });
  });
}
