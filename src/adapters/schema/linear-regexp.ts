import { RE2JS } from 're2js';
import { NonLinearPatternError } from './non-linear-pattern-error.js';
import { unicodePropertyForRe2 } from './unicode-properties.js';

/** What ajv asks of a pattern: whether it matches somewhere in a string, and a spelling that tells it from others. */
export interface PatternTest {
  test(text: string): boolean;
  toString(): string;
}


const BACKREFERENCE = 'holds a backreference (\\1, \\k<name>), which only a backtracking engine can match';
const LOOKAHEAD = 'holds a lookahead ((?=...) or (?!...)) other than right after a leading ^ of a pattern with no | outside groups';
const LOOKBEHIND_CAPTURE = 'holds a capturing group inside a lookbehind: write (?:...) there';

/**
 * ECMAScript's white space and line terminators, what its `\s` matches; RE2's `\s` is
 * ASCII space, tab and line breaks only.
 */
const WHITE_SPACE = '\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** Every other code point: ECMAScript's `\S`, as ranges a class can hold (RE2 has no class subtraction). */
const NON_WHITE_SPACE =
  '\\u{0}-\\u{8}\\u{e}-\\u{1f}\\u{21}-\\u{9f}\\u{a1}-\\u{167f}\\u{1681}-\\u{1fff}\\u{200b}-\\u{2027}\\u{202a}-\\u{202e}\\u{2030}-\\u{205e}\\u{2060}-\\u{2fff}\\u{3001}-\\u{fefe}\\u{ff00}-\\u{10ffff}';
/** What ECMAScript's `.` does not match without the s flag; RE2's `.` misses only `\n`. */
const LINE_TERMINATORS = '\\n\\r\\u2028\\u2029';

/**
 * A schema's `pattern` (an ECMAScript regular expression) for RE2's syntax, with the
 * classes whose meanings differ (`.`, `\s`, `\S`, `[]`, `[^]`) spelled out as ECMAScript
 * reads them, and Unicode properties by RE2's names. Throws for a backreference: RE2
 * refuses `\1`, but would read `\k<name>` as text.
 */
export function ecmaForRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      if (!inClass && (next === 'k' || (next >= '1' && next <= '9'))) throw new NonLinearPatternError(pattern, BACKREFERENCE);
      if (next === 's') out += inClass ? WHITE_SPACE : `[${WHITE_SPACE}]`;
      else if (next === 'S') out += inClass ? NON_WHITE_SPACE : `[${NON_WHITE_SPACE}]`;
      else if ((next === 'p' || next === 'P') && pattern[i + 1] === '{' && pattern.includes('}', i)) {
        const end = pattern.indexOf('}', i);
        out += unicodePropertyForRe2(next, pattern.slice(i + 2, end), inClass);
        i = end;
      }
      else out += c + next;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[' && pattern[i + 1] === ']') {
      // ECMAScript's `[]` (nothing): to RE2 that `]` is a member.
      out += `[^${WHITE_SPACE}${NON_WHITE_SPACE}]`;
      i += 1;
    } else if (c === '[' && pattern.startsWith('^]', i + 1)) {
      // ECMAScript's `[^]` (anything).
      out += `[${WHITE_SPACE}${NON_WHITE_SPACE}]`;
      i += 2;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
    } else out += c === '.' ? `[^${LINE_TERMINATORS}]` : c;
  }
  return out;
}

/** Where each group of `pattern` that starts at `open` closes, and whether `|` separates alternatives outside every group. */
function groupsOf(pattern: string): { closing: Map<number, number>; alternation: boolean } {
  const closing = new Map<number, number>();
  const open: number[] = [];
  let alternation = false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') open.push(i);
    else if (c === ')') closing.set(open.pop()!, i);
    else if (c === '|' && open.length === 0) alternation = true;
  }
  return { closing, alternation };
}

/**
 * `^(?=A)(?!B)C` as the checks it is made of: at the start, A matches and B does not, and
 * `^C` matches. RE2 has no lookahead, but these, the way lookaheads are mostly written
 * (a password needs a digit: `^(?=.*\d).{8,}$`), each run in linear time.
 */
function leadingLookaheads(pattern: string): { lookaheads: { body: string; negated: boolean }[]; rest: string } {
  const lookaheads: { body: string; negated: boolean }[] = [];
  const { closing, alternation } = groupsOf(pattern);
  if (alternation || !pattern.startsWith('^')) return { lookaheads, rest: pattern };
  let i = 1;
  while (pattern.startsWith('(?=', i) || pattern.startsWith('(?!', i)) {
    const end = closing.get(i)!;
    lookaheads.push({ body: pattern.slice(i + 3, end), negated: pattern[i + 2] === '!' });
    i = end + 1;
  }
  return { lookaheads, rest: `^${pattern.slice(i)}` };
}

/** One part of `whole` compiled by RE2, with its captureless lookbehinds (which re2js matches in linear time). */
function re2(part: string, whole: string): RE2JS {
  let translated: string;
  try {
    translated = RE2JS.translateRegExp(ecmaForRe2(part));
  } catch (error) {
    throw error instanceof NonLinearPatternError ? new NonLinearPatternError(whole, error.reason) : error;
  }
  try {
    return RE2JS.compile(translated, RE2JS.LOOKBEHINDS);
  } catch (error) {
    const message = (error as Error).message;
    const reason = /`\(\?[=!]/.test(message) ? LOOKAHEAD : /capture in lookbehind/.test(message) ? LOOKBEHIND_CAPTURE : `uses what RE2 cannot match (${message.replace(/^error parsing regexp: /, '')})`;
    throw new NonLinearPatternError(whole, reason);
  }
}

/**
 * The engine ajv matches `pattern` and `patternProperties` with: RE2 (re2js, a pure
 * JavaScript port), whose time is linear in the text, so no pattern and string can hold
 * the event loop (`^(a+)+$` against 30 a's and a `!` took JavaScript's engine 41 s).
 * What RE2 cannot match that way (backreferences, a lookahead other than leading ones) is
 * refused with NonLinearPatternError: never matched by JavaScript's engine, which has no bound.
 */
export function linearRegExp(pattern: string, flags: string): PatternTest {
  // Compiled by JavaScript first, never run: a pattern it refuses is refused as before (an invalid schema).
  const native = new RegExp(pattern, flags);
  const { lookaheads, rest } = leadingLookaheads(pattern);
  const checks = lookaheads.map(({ body, negated }) => ({ compiled: re2(`^(?:${body})`, pattern), negated }));
  const main = re2(rest, pattern);
  return {
    test: (text) => checks.every(({ compiled, negated }) => compiled.test(text) !== negated) && main.test(text),
    // ajv keeps one compiled pattern per toString(): a RegExp's spelling, so two patterns never share one.
    toString: () => native.toString(),
  };
}
/** ajv's name for the engine in generated standalone code (which the toolkit does not use). */
linearRegExp.code = 'linearRegExp';
