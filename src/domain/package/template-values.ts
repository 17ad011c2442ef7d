/** What `pkg init` fills a template's `{{placeholders}}` with. */
export type TemplateValues = Record<string, string>;

/**
 * Fills `{{key}}` placeholders, escaped for the file they land in: JSON and YAML string
 * escapes, HTML entities; other files take values as they are. An unknown key stays as
 * written, so a template's own braces survive.
 */
export function fillTemplate(path: string, text: string, values: TemplateValues): string {
  const escape = escaperFor(path);
  return text.replace(/\{\{([A-Za-z]+)\}\}/g, (whole, key: string) => (key in values ? escape(values[key]!) : whole));
}

function escaperFor(path: string): (value: string) => string {
  if (/\.(json|ya?ml)$/i.test(path)) return (value) => JSON.stringify(value).slice(1, -1);
  if (/\.html?$/i.test(path)) return (value) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return (value) => value;
}

/** `My Site 2` -> `my-site-2`: a directory name made into a package name. */
export function packageNameFrom(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `my-site` -> `My site`. */
export function titleFrom(name: string): string {
  const words = name.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
