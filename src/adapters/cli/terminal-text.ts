/**
 * Characters a terminal acts on rather than shows (C0 and C1 controls, DEL), and the
 * bidirectional controls that reorder what it shows ("Trojan Source"). Packages and
 * registries are strangers' text: an ESC in a description could clear the screen, retitle
 * the window or hide the lines before it.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTED_ON = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** The text with every such character written as its `\uXXXX` escape; tabs and line breaks kept. */
export function terminalSafe(text: string): string {
  return text.replace(ACTED_ON, escaped);
}

/** A value printed on one line: its own tabs and line breaks escaped too, so it cannot start a line that looks like the tool's. */
export function oneLine(text: string): string {
  return terminalSafe(text).replace(/[\t\n]/g, escaped);
}
