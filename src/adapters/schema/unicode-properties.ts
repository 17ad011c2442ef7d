/** ECMAScript's long General_Category names, by the short ones RE2 knows them by. */
const CATEGORIES: Record<string, string> = {
  Letter: 'L', Cased_Letter: 'LC', Uppercase_Letter: 'Lu', Lowercase_Letter: 'Ll', Titlecase_Letter: 'Lt', Modifier_Letter: 'Lm', Other_Letter: 'Lo',
  Mark: 'M', Combining_Mark: 'M', Nonspacing_Mark: 'Mn', Spacing_Mark: 'Mc', Enclosing_Mark: 'Me',
  Number: 'N', Decimal_Number: 'Nd', digit: 'Nd', Letter_Number: 'Nl', Other_Number: 'No',
  Punctuation: 'P', punct: 'P', Connector_Punctuation: 'Pc', Dash_Punctuation: 'Pd', Open_Punctuation: 'Ps', Close_Punctuation: 'Pe', Initial_Punctuation: 'Pi', Final_Punctuation: 'Pf', Other_Punctuation: 'Po',
  Symbol: 'S', Math_Symbol: 'Sm', Currency_Symbol: 'Sc', Modifier_Symbol: 'Sk', Other_Symbol: 'So',
  Separator: 'Z', Space_Separator: 'Zs', Line_Separator: 'Zl', Paragraph_Separator: 'Zp',
  Other: 'C', Control: 'Cc', cntrl: 'Cc', Format: 'Cf', Surrogate: 'Cs', Private_Use: 'Co', Unassigned: 'Cn',
};

/**
 * ECMAScript's `\p{...}` or `\P{...}` (`escape` is `p` or `P`, `name` what the braces hold)
 * as RE2 reads it: RE2 knows scripts and categories by bare short names (`\p{Greek}`,
 * `\p{Lu}`), and has no `ASCII`. A name RE2 lacks (`Script_Extensions=`) is left for RE2 to refuse.
 */
export function unicodePropertyForRe2(escape: string, name: string, inClass: boolean): string {
  if (name === 'ASCII') {
    const range = escape === 'p' ? '\\u{0}-\\u{7f}' : '\\u{80}-\\u{10ffff}';
    return inClass ? range : `[${range}]`;
  }
  const value = name.replace(/^(?:General_Category|gc|Script|sc)=/, '');
  return `\\${escape}{${CATEGORIES[value] ?? value}}`;
}
