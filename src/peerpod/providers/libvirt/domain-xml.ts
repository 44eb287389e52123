// Domain XML out, metadata back in. Tags live in the domain's <metadata> under our own XML
// namespace, which libvirt stores verbatim and hands back with `virsh metadata <dom> <ns>`; that is
// the libvirt counterpart of a cloud's instance tags.
//
// Deliberate differences from upstream's x86 XML (cloud-api-adaptor libvirt/libvirt.go):
// - No <cpu mode='host-model'/> by default: on nested-virtualisation hosts like CI's it makes QEMU
//   abort at start (failed to set MSR 0x10a); LIBVIRT_CPU_MODE brings it back.
// - No cloud-init ISO (no ISO tool on these machines), so user data is not passed to the guest.
// - The disk and the NIC are optional (LIBVIRT_VOL_NAME=none, LIBVIRT_NET=none) for disk-less,
//   network-less lifecycle tests.

export const METADATA_NS = 'urn:peerpods:libvirt:instance:1';
const PREFIX = 'peerpods';

export interface DomainSpec {
  name: string;
  uuid: string;
  domainType: 'kvm' | 'qemu';
  vcpus: number;
  memoryMiB: number;
  cpuset?: string;
  cpuMode?: string;
  firmware?: string;
  rootVolume?: { pool: string; volume: string };
  network?: string;
  meta: InstanceMetadata;
}

export interface InstanceMetadata {
  createdAt: string;
  podName: string;
  podNamespace: string;
  sandboxId: string;
  tags: Record<string, string>;
}

export function escapeXml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
    .replace(/[\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[e] ?? '';
  });
}

function attrs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out[m[1]] = unescapeXml(m[2] ?? m[3] ?? '');
  }
  return out;
}

export function buildDomainXml(spec: DomainSpec): string {
  const a = escapeXml;
  const tags = Object.entries(spec.meta.tags)
    .map(([k, v]) => `\n      <${PREFIX}:tag key="${a(k)}" value="${a(v)}"/>`)
    .join('');
  const devices: string[] = [];
  if (spec.rootVolume) {
    devices.push(
      `<disk type='volume' device='disk'><driver name='qemu' type='qcow2'/>` +
        `<source pool="${a(spec.rootVolume.pool)}" volume="${a(spec.rootVolume.volume)}"/><target dev='sda' bus='sata'/></disk>`,
    );
  }
  if (spec.network) {
    devices.push(`<interface type='network'><source network="${a(spec.network)}"/><model type='virtio'/></interface>`);
  }
  devices.push(
    `<serial type='pty'><target port='0'/></serial>`,
    `<console type='pty'><target type='serial' port='0'/></console>`,
  );
  const loader = spec.firmware ? `\n    <loader readonly='yes' type='pflash'>${a(spec.firmware)}</loader>` : '';
  const cpu = spec.cpuMode ? `\n  <cpu mode="${a(spec.cpuMode)}"/>` : '';
  const cpuset = spec.cpuset ? ` cpuset="${a(spec.cpuset)}"` : '';
  return `<domain type='${spec.domainType}'>
  <name>${a(spec.name)}</name>
  <uuid>${a(spec.uuid)}</uuid>
  <metadata>
    <${PREFIX}:instance xmlns:${PREFIX}="${METADATA_NS}" created="${a(spec.meta.createdAt)}" pod-name="${a(spec.meta.podName)}" pod-namespace="${a(spec.meta.podNamespace)}" sandbox-id="${a(spec.meta.sandboxId)}">${tags}
    </${PREFIX}:instance>
  </metadata>
  <memory unit='MiB'>${spec.memoryMiB}</memory>
  <vcpu placement='static'${cpuset}>${spec.vcpus}</vcpu>
  <os>
    <type arch='x86_64'>hvm</type>${loader}
    <boot dev='hd'/>
  </os>${cpu}
  <features><acpi/><apic/></features>
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    ${devices.join('\n    ')}
  </devices>
</domain>
`;
}

/** Reads the element `virsh metadata <dom> <METADATA_NS>` prints (libvirt drops our prefix). */
export function parseInstanceMetadata(xml: string): InstanceMetadata | undefined {
  const head = /<(?:[\w-]+:)?instance\b([^>]*)>/.exec(xml);
  if (!head) return undefined;
  const h = attrs(head[1]);
  const tags: Record<string, string> = {};
  for (const m of xml.matchAll(/<(?:[\w-]+:)?tag\b([^>]*?)\/?>/g)) {
    const t = attrs(m[1]);
    if (t.key !== undefined) tags[t.key] = t.value ?? '';
  }
  return {
    createdAt: h.created ?? '',
    podName: h['pod-name'] ?? '',
    podNamespace: h['pod-namespace'] ?? '',
    sandboxId: h['sandbox-id'] ?? '',
    tags,
  };
}

export interface DiskSource {
  pool?: string;
  volume?: string;
  file?: string;
}

/** The disks' sources in `virsh dumpxml` output, for deleting the volumes a VM was given. */
export function parseDiskSources(domainXml: string): DiskSource[] {
  const out: DiskSource[] = [];
  for (const disk of domainXml.matchAll(/<disk\b[\s\S]*?<\/disk>/g)) {
    // The first <source> is the disk's own; later ones belong to its backing chain.
    const src = /<source\b([^>]*)\/?>/.exec(disk[0]);
    if (!src) continue;
    const a = attrs(src[1]);
    out.push({ pool: a.pool, volume: a.volume, file: a.file });
  }
  return out;
}
