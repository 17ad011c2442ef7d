import { RE2JS } from 're2js';

/** What ajv asks of a pattern: whether it matches somewhere in a string, and a spelling that tells it from others. */
export interface PatternTest {
  test(text: string): boolean;
  toString(): string;
}

/**
 * ECMAScript's white space and line terminators, what its `\s` matches; RE2's `\s` is
 * ASCII space, tab and line breaks only.
 */
const WHITE_SPACE = '\\t\\n\\u000b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** What ECMAScript's `.` does not match without the s flag; RE2's `.` misses only `\n`. */
const LINE_TERMINATORS = '\\n\\r\\u2028\\u2029';

/**
 * A schema's `pattern` (an ECMAScript regular expression) for RE2's syntax, with the
 * classes whose meanings differ (`.`, `\s`, `\S`) spelled out as ECMAScript reads them;
 * undefined for what RE2 cannot say that way (`\S` inside a class, `[]`, `[^]`).
 */
export function ecmaForRe2(pattern: string): string | undefined {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      if (next === 's') out += inClass ? WHITE_SPACE : `[${WHITE_SPACE}]`;
      else if (next === 'S') {
        if (inClass) return undefined;
        out += `[^${WHITE_SPACE}]`;
      } else out += c + next;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
      // ECMAScript's `[]` (nothing) and `[^]` (anything): to RE2 that `]` is a member.
      if (pattern[i + 1] === ']') return undefined;
    } else out += c === '.' ? `[^${LINE_TERMINATORS}]` : c;
  }
  return out;
}

/**
 * The engine ajv matches `pattern` and `patternProperties` with: RE2 (re2js, a pure
 * JavaScript port), whose time is linear in the text, so no pattern and string can hold
 * the event loop (`^(a+)+$` against 30 a's and a `!` took JavaScript's engine 41 s).
 * A pattern RE2 cannot express (lookaround, backreferences) runs on JavaScript's own engine.
 */
export function linearRegExp(pattern: string, flags: string): PatternTest {
  // Compiled by JavaScript first, never run: a pattern it refuses is refused as before (an invalid schema).
  const native = new RegExp(pattern, flags);
  const translated = ecmaForRe2(pattern);
  if (translated !== undefined) {
    try {
      const compiled = RE2JS.compile(RE2JS.translateRegExp(translated));
      // ajv keeps one compiled pattern per toString(): a RegExp's spelling, so two patterns never share one.
      return { test: (text) => compiled.test(text), toString: () => native.toString() };
    } catch {
      // Beyond RE2 (lookaround, backreferences): JavaScript's engine matches it.
    }
  }
  return native;
}
/** ajv's name for the engine in generated standalone code (which the toolkit does not use). */
linearRegExp.code = 'linearRegExp';
