import mime from 'mime-types';
import { extensionOf } from './package-paths.js';

export const FALLBACK_TYPE = 'application/octet-stream';

/** MIME type by extension, or undefined when the extension says nothing. */
export function typeByExtension(path: string): string | undefined {
  const extension = extensionOf(path);
  if (extension === '') return undefined;
  const type = mime.lookup(extension);
  return type === false ? undefined : type;
}

const SIGNATURES: Array<[string, number[]]> = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
  ['application/pdf', [0x25, 0x50, 0x44, 0x46, 0x2d]],
  ['application/zip', [0x50, 0x4b, 0x03, 0x04]],
  ['application/gzip', [0x1f, 0x8b]],
  ['font/woff', [0x77, 0x4f, 0x46, 0x46]],
  ['font/woff2', [0x77, 0x4f, 0x46, 0x32]],
  ['application/wasm', [0x00, 0x61, 0x73, 0x6d]],
];

/** Content sniffing for files whose extension is unknown: magic numbers, then text. */
export function sniffType(head: Uint8Array): string | undefined {
  for (const [type, signature] of SIGNATURES) {
    if (signature.every((byte, i) => head[i] === byte)) return type;
  }
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  const text = ascii(head, 0, Math.min(head.length, 512)).trimStart().toLowerCase();
  if (text.startsWith('<!doctype html') || text.startsWith('<html')) return 'text/html';
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return 'image/svg+xml';
  if (text.startsWith('<?xml')) return 'application/xml';
  if (head.length > 0 && looksLikeText(head)) return 'text/plain';
  return undefined;
}

export function detectType(path: string, head?: Uint8Array): string {
  return typeByExtension(path) ?? (head ? sniffType(head) : undefined) ?? FALLBACK_TYPE;
}

/** Bytes already compressed: deflating them again costs time and saves nothing. */
const COMPRESSED_EXTENSIONS = new Set([
  'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'heic', 'jxl',
  'woff', 'woff2',
  'zip', 'cap', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'br',
  'mp3', 'mp4', 'm4a', 'm4v', 'webm', 'ogg', 'oga', 'ogv', 'opus', 'flac', 'mov', 'avi', 'mkv',
]);

export function isCompressedMedia(path: string): boolean {
  return COMPRESSED_EXTENSIONS.has(extensionOf(path));
}

/** Bytes that compressing saves nothing on: compressed media by extension, or a sample that measures as such. */
export function isIncompressible(path: string, sample: Uint8Array): boolean {
  return isCompressedMedia(path) || looksIncompressible(sample);
}

/** A media type without its parameters, lowercased: `TEXT/HTML; charset=utf-8` is `text/html`, as browsers compare them. */
export function mediaTypeEssence(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

export function isTextType(mediaType: string): boolean {
  // A manifest may write `TEXT/HTML` or `image/svg+xml; charset=utf-8`: a browser reads both as text, and validate must scan them.
  const type = mediaTypeEssence(mediaType);
  return (
    type.startsWith('text/') ||
    /^application\/(json|ld\+json|manifest\+json|javascript|ecmascript|xml|xhtml\+xml|x-yaml|yaml|toml)/.test(type) ||
    type === 'image/svg+xml' ||
    type.endsWith('+xml') ||
    type.endsWith('+json')
  );
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end && i < bytes.length; i++) text += String.fromCharCode(bytes[i]!);
  return text;
}

function looksLikeText(bytes: Uint8Array): boolean {
  for (let i = 0; i < Math.min(bytes.length, 512); i++) {
    const byte = bytes[i]!;
    if (byte === 0) return false;
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) return false;
  }
  return true;
}

/**
 * Whether a sample of a file's bytes looks incompressible: Shannon entropy above
 * 7.5 bits per byte (text sits near 4.5, compressed or random data near 8).
 * Deterministic, so packs stay reproducible.
 */
export function looksIncompressible(sample: Uint8Array): boolean {
  const length = Math.min(sample.length, 4096);
  if (length < 512) return false;
  const counts = new Uint32Array(256);
  for (let i = 0; i < length; i++) counts[sample[i]!]!++;
  let entropy = 0;
  for (const count of counts) {
    if (count === 0) continue;
    const p = count / length;
    entropy -= p * Math.log2(p);
  }
  return entropy > 7.5;
}
