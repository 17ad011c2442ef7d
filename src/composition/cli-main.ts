#!/usr/bin/env node
import type { Container, ServiceIdentifier } from 'inversify';
import { hideBin } from 'yargs/helpers';
import { processOutput } from '../adapters/cli/cli-output.js';
import type { Lazy } from '../adapters/cli/lazy.js';
import { runCli } from '../adapters/cli/pkg-cli.js';
import { createContainer } from './container.js';
import { PORT, USE_CASE } from './service-ids.js';
import { toolVersion } from './toolkit-root.js';

// No `import 'reflect-metadata'`: nothing is decorated and every binding is a factory, so no
// constructor metadata is emitted or read; inversify loads the lite metadata API it uses itself.
let container: Container | undefined;
/** Resolved when a command handler calls it: the container, and what the command runs, are built then. */
const lazily =
  <T>(id: ServiceIdentifier<T>): Lazy<T> =>
  () =>
    (container ??= createContainer()).get(id);

const status = await runCli(hideBin(process.argv), {
  version: toolVersion(),
  output: processOutput,
  package: {
    pack: lazily(USE_CASE.PackPackage),
    unpack: lazily(USE_CASE.UnpackPackage),
    validate: lazily(USE_CASE.ValidatePackage),
    inspect: lazily(USE_CASE.InspectPackage),
    test: lazily(USE_CASE.TestPackage),
    sign: lazily(USE_CASE.SignPackage),
    verifySignature: lazily(USE_CASE.VerifySignature),
    encrypt: lazily(USE_CASE.EncryptPackage),
    decrypt: lazily(USE_CASE.DecryptPackage),
    push: lazily(USE_CASE.PushPackage),
    diff: lazily(USE_CASE.DiffPackages),
  },
  reactor: lazily(PORT.ReactorHost),
  copyOverlays: lazily(USE_CASE.CopyOverlays),
  install: lazily(USE_CASE.InstallPackage),
  init: lazily(USE_CASE.InitPackage),
  indexRegistry: lazily(USE_CASE.IndexRegistry),
  search: lazily(USE_CASE.SearchRegistry),
  uninstall: lazily(USE_CASE.UninstallPackage),
});
process.exitCode = status;
