/** A small valid package, as files, for tests that need one. */
export const VALID_METADATA = {
  name: 'demo-site',
  version: '1.2.3',
  description: 'A demo',
  guid: 'pkg://example.org/demo-site',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
};

export function demoPackage(overrides: Record<string, string | Uint8Array> = {}): Record<string, string | Uint8Array> {
  return {
    'metadata.json': JSON.stringify(VALID_METADATA),
    'content/index.html': '<!doctype html><title>Demo</title><link rel="stylesheet" href="/style.css">',
    'content/style.css': 'body { color: black; }',
    'content/docs/guide.html': '<!doctype html><p>Guide</p>',
    ...overrides,
  };
}
