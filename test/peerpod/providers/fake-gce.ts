// Compute Engine at the SDK's transport layer: the clients run in REST mode (`fallback`), and an
// `authClient` whose `fetch` answers is all google-gax calls, so requests are encoded, retried and
// decoded by the real library.

export interface GceCall {
  method: string;
  url: URL;
  body: unknown;
}

export interface GceReply {
  status?: number;
  body?: unknown;
}

type Route = { method: string; path: RegExp; reply: GceReply | ((c: GceCall) => GceReply); times: number };

export class FakeGce {
  readonly calls: GceCall[] = [];
  private readonly routes: Route[] = [];

  on(method: string, path: RegExp, reply: GceReply | ((c: GceCall) => GceReply), times = Infinity): this {
    this.routes.push({ method, path, reply, times });
    return this;
  }

  once(method: string, path: RegExp, reply: GceReply | ((c: GceCall) => GceReply)): this {
    return this.on(method, path, reply, 1);
  }

  summary(): string[] {
    return this.calls.map((c) => `${c.method} ${c.url.pathname.replace('/compute/v1/projects/proj-1', '')}`);
  }

  readonly authClient = {
    universeDomain: 'googleapis.com',
    getRequestHeaders: async () => new Headers({ authorization: 'Bearer fake' }),
    fetch: async (url: string, init: { method: string; body?: string }): Promise<Response> => {
      const call: GceCall = {
        method: init.method,
        url: new URL(url),
        body: init.body ? (JSON.parse(init.body) as unknown) : undefined,
      };
      this.calls.push(call);
      const route = this.routes.find((r) => r.times > 0 && r.method === init.method && r.path.test(call.url.pathname));
      if (!route) throw new Error(`fake GCE: no route for ${init.method} ${call.url.pathname}`);
      route.times--;
      const reply = typeof route.reply === 'function' ? route.reply(call) : route.reply;
      return new Response(JSON.stringify(reply.body ?? {}), { status: reply.status ?? 200 });
    },
  };
}

export function gceError(status: number, reason: string, message: string): GceReply {
  return { status, body: { error: { code: status, message, errors: [{ message, domain: 'global', reason }] } } };
}

export function operation(
  name: string,
  status: 'RUNNING' | 'DONE',
  error?: { code: string; message: string },
): GceReply {
  return {
    body: {
      kind: 'compute#operation',
      id: '1234',
      name,
      status,
      zone: 'https://www.googleapis.com/compute/v1/projects/proj-1/zones/europe-west4-a',
      ...(error ? { error: { errors: [error] } } : {}),
    },
  };
}
