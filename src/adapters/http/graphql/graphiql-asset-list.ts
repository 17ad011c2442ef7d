// No imports here: scripts/bundle.js reads this list too, to copy the files into dist/graphiql/.

/** One file of GraphiQL's browser build, served by the reactor at `GRAPHIQL_ASSETS_PATH` + `name`. */
export interface GraphiqlAsset {
  /** The served name: it carries the package's version, so a cached copy never outlives an upgrade. */
  name: string;
  /** The npm package that ships it, at exactly this version (pinned in package.json; the build checks it). */
  package: string;
  version: string;
  /** Its path inside that package. */
  file: string;
  contentType: string;
}

const JS = 'text/javascript; charset=utf-8';

/**
 * GraphiQL 4's prebuilt UMD bundle and CSS (the last major that ships one: 5 is ES modules
 * and Monaco, for a bundler), over the React 18 UMD builds it expects as globals (React 19
 * ships none). Nothing here names a host: the page loads these from the reactor.
 */
export const GRAPHIQL_ASSETS = {
  react: { name: 'react-18.3.1.production.min.js', package: 'react', version: '18.3.1', file: 'umd/react.production.min.js', contentType: JS },
  reactDom: { name: 'react-dom-18.3.1.production.min.js', package: 'react-dom', version: '18.3.1', file: 'umd/react-dom.production.min.js', contentType: JS },
  graphiql: { name: 'graphiql-4.1.2.min.js', package: 'graphiql', version: '4.1.2', file: 'graphiql.min.js', contentType: JS },
  graphiqlCss: { name: 'graphiql-4.1.2.min.css', package: 'graphiql', version: '4.1.2', file: 'graphiql.min.css', contentType: 'text/css; charset=utf-8' },
} as const satisfies Record<string, GraphiqlAsset>;

/** The assets by served name. */
export function graphiqlAsset(name: string): GraphiqlAsset | undefined {
  return Object.values(GRAPHIQL_ASSETS).find((asset) => asset.name === name);
}
