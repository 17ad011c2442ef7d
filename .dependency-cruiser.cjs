/** The hexagonal boundary of ARCHITECTURE.md, enforced by `npm run lint`. */
const IO_LIBRARIES = '^(node:|fs$|path$|os$|child_process$|http$|https$|net$|stream$|zlib$|crypto$)|node_modules/(express|yargs|node-stream-zip|got|openpgp|ajv|ajv-formats|inversify|graphql|graphql-http)/';
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'src/domain holds pure rules: no application, adapters, composition, node: modules or I/O libraries, not even their types.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: ['^src/(application|adapters|composition)/', IO_LIBRARIES] },
    },
    {
      name: 'domain-is-pure-core',
      comment: 'node: core modules are I/O, even when only types are imported.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'application-uses-ports',
      comment: 'src/application reaches adapters only through the ports it declares.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { path: ['^src/(adapters|composition)/', 'node_modules/(express|yargs|node-stream-zip|got|openpgp|ajv|graphql-http)/'] },
    },
    {
      name: 'application-does-no-io',
      comment: 'node: core modules are I/O: the application reaches them through its ports, even for types.',
      severity: 'error',
      from: { path: '^src/application/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'adapters-do-not-import-each-other-across-kinds',
      comment: 'An adapter reaches another adapter only through a port.',
      severity: 'error',
      from: { path: '^src/adapters/([^/]+)/' },
      to: { path: '^src/adapters/', pathNot: ['^src/adapters/$1/', '^src/adapters/shared/'] },
    },
    {
      name: 'adapters-do-not-import-composition',
      comment: 'Adapters receive what they need (ports, or Lazy thunks for the CLI); only composition knows the container and its identifiers.',
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/composition/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.d.ts'] },
  },
};
