#!/usr/bin/env node
import 'reflect-metadata';
import { hideBin } from 'yargs/helpers';
import { processOutput } from '../adapters/cli/cli-output.js';
import { runCli } from '../adapters/cli/pkg-cli.js';
import { InspectPackage } from '../application/use-cases/inspect-package.js';
import { PackPackage } from '../application/use-cases/pack-package.js';
import { UnpackPackage } from '../application/use-cases/unpack-package.js';
import { ValidatePackage } from '../application/use-cases/validate-package.js';
import { TestPackage } from '../application/use-cases/test-package.js';
import { createContainer } from './container.js';
import { toolVersion } from './toolkit-root.js';
import { TOKENS } from '../application/ports/tokens.js';
import { SignPackage } from '../application/use-cases/sign-package.js';
import { VerifySignature } from '../application/use-cases/verify-signature.js';
import { EncryptPackage } from '../application/use-cases/encrypt-package.js';
import { DecryptPackage } from '../application/use-cases/decrypt-package.js';
import { InstallPackage } from '../application/use-cases/install-package.js';
import { PushPackage } from '../application/use-cases/push-package.js';
import { DiffPackages } from '../application/use-cases/diff-packages.js';
import { InitPackage } from '../application/use-cases/init-package.js';
import { IndexRegistry } from '../application/use-cases/index-registry.js';
import { SearchRegistry } from '../application/use-cases/search-registry.js';
import { UninstallPackage } from '../application/use-cases/uninstall-package.js';

const container = createContainer();
const status = await runCli(hideBin(process.argv), {
  version: toolVersion(),
  output: processOutput,
  package: {
    pack: container.get(PackPackage),
    unpack: container.get(UnpackPackage),
    validate: container.get(ValidatePackage),
    inspect: container.get(InspectPackage),
    test: container.get(TestPackage),
    sign: container.get(SignPackage),
    verifySignature: container.get(VerifySignature),
    encrypt: container.get(EncryptPackage),
    decrypt: container.get(DecryptPackage),
    push: container.get(PushPackage),
    diff: container.get(DiffPackages),
  },
  reactor: container.get(TOKENS.ReactorHost),
  install: container.get(InstallPackage),
  init: container.get(InitPackage),
  indexRegistry: container.get(IndexRegistry),
  search: container.get(SearchRegistry),
  uninstall: container.get(UninstallPackage),
});
process.exitCode = status;
