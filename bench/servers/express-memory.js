// express 5 answering the same bytes from memory through its router.
import express from 'express';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const [root, port] = process.argv.slice(2);
const app = express();
for (const name of readdirSync(root)) {
  const body = readFileSync(join(root, name));
  app.get(`/${name}`, (_request, response) => {
    response.set('Cache-Control', 'public, max-age=31536000').type(name).send(body);
  });
}
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
