import type { HttpProbe, ProbeResponse } from '../../application/ports/http-probe.js';

export class FetchHttpProbe implements HttpProbe {
  async get(url: string): Promise<ProbeResponse> {
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(30_000) });
    return { status: response.status, contentType: response.headers.get('content-type') ?? undefined, body: await response.text() };
  }
}
