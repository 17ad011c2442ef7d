// express 5 answering the same bytes from memory, gzip-encoded per request by the
// `compression` middleware (zlib level 6 by default): the usual way an express app gzips.
// Only run when `compression` is in node_modules (it is not a dependency of this project).
import compression from 'compression';
import express from 'express';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const [root, port] = process.argv.slice(2);
const app = express();
app.use(compression());
for (const name of readdirSync(root)) {
  const body = readFileSync(join(root, name));
  app.get(`/${name}`, (_request, response) => {
    response.set('Cache-Control', 'public, max-age=31536000').type(name).send(body);
  });
}
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
