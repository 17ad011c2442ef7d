import { createHash } from 'node:crypto';

/**
 * The Content-Security-Policy of a page the reactor makes itself (GraphiQL, the API page):
 * everything from the reactor's own origin, its one inline script by hash. The UIs' CSS
 * embeds fonts and images as data: URLs and they set styles inline, so styles may be
 * inline (a hash beside 'unsafe-inline' would void it). Nothing may come from another host.
 */
export function ownPageCsp(inlineScript: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${createHash('sha256').update(inlineScript).digest('base64')}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}
