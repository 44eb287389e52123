// Names a scaffold is built from, checked the way kubebuilder checks them (a DNS-1123 group and
// domain, a Kubernetes version, an UpperCamelCase kind), and the names derived from them.
import { isDNS1123Label, isDNS1123Subdomain } from '../../apimachinery/index.ts';
import { ScaffoldError } from './errors.ts';

const VERSION = /^v\d+(?:(?:alpha|beta)\d+)?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
const PACKAGE = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export function checkDomain(domain: string): string {
  if (isDNS1123Subdomain(domain).length > 0) {
    throw new ScaffoldError(`invalid --domain "${domain}": must be a lower-case DNS subdomain, e.g. example.com`);
  }
  return domain;
}

export function checkRepo(repo: string): string {
  if (!PACKAGE.test(repo) || repo.length > 214) {
    throw new ScaffoldError(`invalid --repo "${repo}": must be a lower-case npm package name, e.g. my-operator`);
  }
  return repo;
}

export function checkGroup(group: string): string {
  if (isDNS1123Subdomain(group).length > 0) {
    throw new ScaffoldError(`invalid --group "${group}": must be a lower-case DNS-1123 name, e.g. ship`);
  }
  return group;
}

export function checkVersion(version: string): string {
  if (!VERSION.test(version)) {
    throw new ScaffoldError(`invalid --version "${version}": must look like v1, v1beta1 or v1alpha2`);
  }
  return version;
}

export function checkKind(kind: string): string {
  if (!KIND.test(kind) || kind.length > 63) {
    throw new ScaffoldError(`invalid --kind "${kind}": must be UpperCamelCase letters and digits, e.g. Frigate`);
  }
  return kind;
}

/** The plural resource name, as kubebuilder's pluralizer forms the common cases. */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** `alnairPod` from `AlnairPod`: the name of a value of the kind. */
export function camelOf(kind: string): string {
  return kind[0].toLowerCase() + kind.slice(1);
}

/** The identifier of a lease or a Kubernetes object named after the project. */
export function objectNameOf(repo: string): string {
  const name = repo
    .replace(/^@[^/]+\//, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  if (isDNS1123Label(name).length > 0) throw new ScaffoldError(`cannot derive a Kubernetes name from --repo "${repo}"`);
  return name;
}
