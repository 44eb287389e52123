// The scaffolding commands (kubebuilder's init / create api / create webhook / make manifests).
// Only declarations here: each action imports its implementation when it runs, so `peerpods --help`
// loads none of it.
import type { Command } from 'commander';
// Types only (erased): the flags are the options the implementations take.
import type { CreateApiOptions } from './create-api.ts';
import type { CreateWebhookOptions } from './create-webhook.ts';
import type { GenerateOptions } from './generate.ts';
import type { InitOptions } from './init.ts';

/** Parses `--flag`, `--flag=true|false` as kubebuilder's boolean flags do. */
function bool(name: string) {
  return (v: string | boolean | undefined): boolean => {
    if (v === undefined || v === true || v === 'true') return true;
    if (v === false || v === 'false') return false;
    throw new Error(`--${name} takes true or false, not "${String(v)}"`);
  };
}

const print = (written: string[]) => {
  for (const f of written) console.log(`wrote ${f}`);
};

export function registerScaffoldCommands(program: Command): void {
  program
    .command('init')
    .description('scaffold a new operator project (package.json, src/main.ts, config/ layers, Dockerfile, tests)')
    .requiredOption('--domain <domain>', 'domain of the API groups, e.g. example.com')
    .requiredOption('--repo <name>', 'npm package name of the project, e.g. my-operator')
    .option('--owner <owner>', 'copyright owner')
    .option('--dir <dir>', 'project directory (default: the current one)')
    .action(async (o: InitOptions) => {
      const { init } = await import('./init.ts');
      print(await init(o));
      console.log('next: npm install, then peerpods create api --group <group> --version <version> --kind <Kind>');
    });

  const create = program.command('create').description('scaffold an API (kind, controller) or a webhook');
  create
    .command('api')
    .description('scaffold a kind: types, CRD registration, controller with RBAC declarations, sample, test')
    .requiredOption('--group <group>', 'API group (without the domain), e.g. ship')
    .requiredOption('--version <version>', 'API version, e.g. v1alpha1')
    .requiredOption('--kind <Kind>', 'kind, UpperCamelCase, e.g. Frigate')
    .option('--resource [bool]', 'scaffold the types and CRD', bool('resource'), true)
    .option(
      '--controller [bool]',
      'scaffold the controller (default: true, false for another version of a kind that has one)',
      bool('controller'),
    )
    .option('--namespaced [bool]', 'namespaced kind (false: cluster-scoped)', bool('namespaced'), true)
    .option('--dir <dir>', 'project directory (default: the current one)')
    .action(async (o: CreateApiOptions) => {
      const { createApi } = await import('./create-api.ts');
      print(await createApi(o));
      console.log('next: edit the types, then npm run generate && npm test');
    });
  create
    .command('webhook')
    .description('scaffold admission webhooks (defaulting, validation) or conversion for a kind')
    .requiredOption('--group <group>', 'API group (without the domain)')
    .requiredOption('--version <version>', 'API version')
    .requiredOption('--kind <Kind>', 'kind')
    .option('--defaulting', 'a mutating (defaulting) webhook')
    .option('--programmatic-validation', 'a validating webhook')
    .option('--conversion', 'a conversion webhook (the kind needs a second version)')
    .option('--dir <dir>', 'project directory (default: the current one)')
    .action(async (o: CreateWebhookOptions) => {
      const { createWebhook } = await import('./create-webhook.ts');
      print(await createWebhook(o));
      console.log('next: fill in the webhook, then npm run generate && npm test');
    });

  program
    .command('generate')
    .description(
      'regenerate config/crd/bases, config/rbac/role.yaml and webhook manifests from the code (make manifests)',
    )
    .option('--force', 'overwrite generated files that were edited by hand')
    .option('--dir <dir>', 'project directory (default: the current one)')
    .action(async (o: GenerateOptions) => {
      const { generate } = await import('./generate.ts');
      const r = await generate(o);
      print(r.written);
      console.log(`${r.unchanged.length} file(s) unchanged`);
    });
}
