/** One file of a package template, with `{{placeholders}}` still in it. */
export interface TemplateFile {
  path: string;
  bytes: Uint8Array;
}

/** The starting points `pkg init` scaffolds from: the templates the toolkit ships. */
export interface PackageTemplates {
  /** Template names, sorted. */
  names(): Promise<string[]>;
  /** Every file of a template, or undefined when there is no such template. */
  files(name: string): Promise<TemplateFile[] | undefined>;
}
