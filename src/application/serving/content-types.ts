import { detectType, isTextType } from '../../domain/package/media-types.js';

/** The Content-Type header for a file: text types carry their charset. */
export function contentTypeHeader(type: string): string {
  return isTextType(type) && !type.includes('charset') ? `${type}; charset=utf-8` : type;
}

export function typeOf(manifestType: string | undefined, path: string): string {
  return manifestType ?? detectType(path);
}
