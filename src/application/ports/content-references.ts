/** A reference to another host in a content file: what a browser would load or follow. */
export interface ContentReference {
  line: number;
  url: string;
}

/**
 * Finds the external references of one content file by its type: HTML attributes that
 * load or link, CSS `url()` and `@import`, module import specifiers. Mentions (URLs in
 * comments, text, strings) are not references. A file it cannot read to its end is
 * refused with UnscannableContentError.
 */
export interface ContentReferenceScanner {
  /** `type`: the media type the file is served as (its manifest entry's, or sniffed); by default its extension's. */
  scan(path: string, text: string, type?: string): Promise<ContentReference[]>;
}
