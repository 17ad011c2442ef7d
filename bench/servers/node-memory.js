// The Node ceiling: a bare node:http server answering the same bytes from a Map.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [root, port] = process.argv.slice(2);
const files = new Map(readdirSync(root).map((name) => [`/${name}`, readFileSync(join(root, name))]));
createServer((request, response) => {
  const body = files.get(request.url);
  if (!body) return response.writeHead(404).end();
  response.writeHead(200, { 'Content-Type': request.url.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/javascript; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'public, max-age=31536000' });
  response.end(body);
}).listen(Number(port), '127.0.0.1', () => console.log('listening'));
