import type { HttpProbe, ProbeResponse } from '../../src/application/ports/http-probe.js';

export interface ScriptedPage {
  status: number;
  body: string;
  type?: string;
}

/**
 * Answers GETs from a table of pages by path and query below one origin, as a server
 * would: a page that is not there is a 404, anything outside the origin cannot be
 * reached, and nothing is followed (a redirect is answered as it is). Records what was
 * asked. Kept honest by test/contracts/http-probe.contract.ts.
 */
export class ScriptedHttpProbe implements HttpProbe {
  readonly requested: string[] = [];

  constructor(
    readonly origin: string,
    readonly pages: Record<string, ScriptedPage> = {},
  ) {}

  async get(url: string): Promise<ProbeResponse> {
    this.requested.push(url);
    const parsed = new URL(url);
    if (parsed.origin !== new URL(this.origin).origin) throw new TypeError(`fetch failed: ${parsed.origin} cannot be reached`);
    const page = this.pages[`${parsed.pathname}${parsed.search}`] ?? { status: 404, body: 'not found', type: 'text/plain' };
    return { status: page.status, contentType: page.type, body: page.body };
  }
}
