import type { ServerResponse } from 'node:http';
import type { Reactor } from '../../application/serving/reactor.js';

/**
 * `--live-reload`: the Server-Sent Events stream the script in served HTML listens to.
 * Each reload of a package sends one `reload` event to every open page.
 */
export class LiveReloadStream {
  private readonly pages = new Set<ServerResponse>();

  constructor(reactor: Reactor) {
    reactor.onEvent((event) => {
      if (event.kind !== 'reloaded') return;
      for (const page of this.pages) page.write('data: reload\n\n');
    });
  }

  add(response: ServerResponse): void {
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    response.write(': live reload\n\n');
    this.pages.add(response);
    response.once('close', () => this.pages.delete(response));
    // A page that goes away ends its side of the connection, and the reactor keeps half-closed
    // connections open until their answer is written (ReactorServer): this answer never is,
    // so it ends here, or every page ever opened would hold a connection for good.
    response.socket?.once('end', () => response.end());
  }

  /** The reactor stops: open pages' streams end, so they do not hold the stop up. */
  close(): void {
    for (const page of this.pages) page.end();
    this.pages.clear();
  }
}
