// An EC2 endpoint at the SDK's transport layer: the EC2Client gets this as its `requestHandler`,
// so requests are built, signed, retried and parsed by the real SDK; only the network is fake.

export interface Ec2Call {
  action: string;
  params: Record<string, string>;
}

export interface Ec2Reply {
  status?: number;
  body: string;
}

export type Ec2Responder = (call: Ec2Call) => Ec2Reply | undefined;

export interface FakeInstance {
  id: string;
  name?: string;
  ip?: string;
  publicIp?: string;
  state?: string;
  launchTime?: string;
  tags?: Record<string, string>;
  instanceType?: string;
  /** CoreCount x ThreadsPerCore = vCPUs. */
  cpu?: { cores: number; threads: number };
  lifecycle?: 'spot' | 'scheduled';
}

const x = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function instanceXml(i: FakeInstance): string {
  const tags = { ...(i.name ? { Name: i.name } : {}), ...i.tags };
  return `<item><instanceId>${i.id}</instanceId><imageId>ami-1</imageId>
${i.instanceType ? `<instanceType>${i.instanceType}</instanceType>` : ''}${i.lifecycle ? `<instanceLifecycle>${i.lifecycle}</instanceLifecycle>` : ''}
${i.cpu ? `<cpuOptions><coreCount>${i.cpu.cores}</coreCount><threadsPerCore>${i.cpu.threads}</threadsPerCore></cpuOptions>` : ''}
<instanceState><code>16</code><name>${i.state ?? 'running'}</name></instanceState>
<launchTime>${i.launchTime ?? '2026-01-01T00:00:00.000Z'}</launchTime>
${i.ip ? `<privateIpAddress>${i.ip}</privateIpAddress>` : ''}${i.publicIp ? `<ipAddress>${i.publicIp}</ipAddress>` : ''}
<networkInterfaceSet>${i.ip ? `<item><privateIpAddress>${i.ip}</privateIpAddress></item>` : ''}</networkInterfaceSet>
<tagSet>${Object.entries(tags)
    .map(([k, v]) => `<item><key>${x(k)}</key><value>${x(v)}</value></item>`)
    .join('')}</tagSet></item>`;
}

const NS = 'xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"';

export function describeXml(instances: FakeInstance[], nextToken?: string): string {
  return `<DescribeInstancesResponse ${NS}><requestId>req</requestId><reservationSet>${
    instances.length
      ? `<item><reservationId>r-1</reservationId><ownerId>1</ownerId><instancesSet>${instances.map(instanceXml).join('')}</instancesSet></item>`
      : ''
  }</reservationSet>${nextToken ? `<nextToken>${nextToken}</nextToken>` : ''}</DescribeInstancesResponse>`;
}

export function runXml(i: FakeInstance): string {
  return `<RunInstancesResponse ${NS}><requestId>req</requestId><reservationId>r-1</reservationId><ownerId>1</ownerId><instancesSet>${instanceXml({ state: 'pending', ...i })}</instancesSet></RunInstancesResponse>`;
}

export function terminateXml(id: string): string {
  return `<TerminateInstancesResponse ${NS}><requestId>req</requestId><instancesSet><item><instanceId>${id}</instanceId><currentState><code>32</code><name>shutting-down</name></currentState><previousState><code>16</code><name>running</name></previousState></item></instancesSet></TerminateInstancesResponse>`;
}

export function imagesXml(rootDevice: string, sizeGiB: number): string {
  return `<DescribeImagesResponse ${NS}><requestId>req</requestId><imagesSet><item><imageId>ami-1</imageId><rootDeviceName>${rootDevice}</rootDeviceName><blockDeviceMapping><item><deviceName>${rootDevice}</deviceName><ebs><volumeSize>${sizeGiB}</volumeSize></ebs></item></blockDeviceMapping></item></imagesSet></DescribeImagesResponse>`;
}

export function instanceTypesXml(types: Array<{ type: string; vcpus: number }>): string {
  return `<DescribeInstanceTypesResponse ${NS}><requestId>req</requestId><instanceTypeSet>${types
    .map(
      (t) =>
        `<item><instanceType>${t.type}</instanceType><vCpuInfo><defaultVCpus>${t.vcpus}</defaultVCpus></vCpuInfo></item>`,
    )
    .join('')}</instanceTypeSet></DescribeInstanceTypesResponse>`;
}

export function errorXml(code: string, message = code): Ec2Reply {
  // EC2 answers throttling with 503 and client errors (including quota) with 400.
  const status = code === 'RequestLimitExceeded' ? 503 : 400;
  return {
    status,
    body: `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>${code}</Code><Message>${x(message)}</Message></Error></Errors><RequestID>req</RequestID></Response>`,
  };
}

export class FakeEc2 {
  readonly calls: Ec2Call[] = [];
  private readonly queued = new Map<string, Ec2Reply[]>();
  private readonly responders: Ec2Responder[] = [];

  /** Replies to every call the queued replies do not cover; undefined passes the call on. */
  on(responder: Ec2Responder): this {
    this.responders.push(responder);
    return this;
  }

  /** Queues a reply for the next call of `action` (first queued, first used). */
  once(action: string, reply: Ec2Reply | string): this {
    const q = this.queued.get(action) ?? [];
    q.push(typeof reply === 'string' ? { body: reply } : reply);
    this.queued.set(action, q);
    return this;
  }

  actions(): string[] {
    return this.calls.map((c) => c.action);
  }

  private reply(call: Ec2Call): Ec2Reply | undefined {
    const queued = this.queued.get(call.action)?.shift();
    if (queued) return queued;
    for (const r of this.responders) {
      const reply = r(call);
      if (reply) return reply;
    }
    return undefined;
  }

  readonly requestHandler = {
    handle: async (req: { body?: unknown }) => {
      const params = Object.fromEntries(new URLSearchParams(String(req.body ?? '')));
      const call: Ec2Call = { action: params.Action ?? '', params };
      this.calls.push(call);
      const reply = this.reply(call);
      if (!reply) throw new Error(`fake EC2: no reply for ${call.action}`);
      return {
        response: {
          statusCode: reply.status ?? 200,
          headers: { 'content-type': 'text/xml;charset=UTF-8' },
          body: Buffer.from(reply.body),
        },
      };
    },
  };
}
