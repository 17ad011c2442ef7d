// css-tree's parser and walker alone, without the lexer and its CSS grammar data (a third
// of the memory and a quarter of the load time of the whole library): its types declare
// only the package's root.

declare module 'css-tree/parser' {
  import type { parse } from 'css-tree';
  const parser: typeof parse;
  export default parser;
}

declare module 'css-tree/walker' {
  import type { walk } from 'css-tree';
  const walker: typeof walk;
  export default walker;
}
