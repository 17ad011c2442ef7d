import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

export const NGINX = '/usr/sbin/nginx';

/** A CA and a certificate for 127.0.0.1 and localhost signed by it, made with openssl. */
export function makeCertificates(directory: string): { ca: string; cert: string; key: string } {
  const at = (name: string) => join(directory, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=pkg test CA', '-keyout', at('ca.key'), '-out', at('ca.pem'));
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', at('server.key'), '-out', at('server.csr'));
  writeFileSync(at('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-days', '2', '-extfile', at('san.ext'), '-out', at('server.pem'));
  return { ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key') };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface StaticHttps {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * nginx serving `root` over https on a free loopback port, in the foreground as a
 * child of the test, with every path it writes inside `workdir`. `locations` adds
 * raw nginx `location` blocks (fault injection: `return 500;`, redirects, basic auth).
 */
export async function startNginx(options: { root: string; workdir: string; cert: string; key: string; locations?: string }): Promise<StaticHttps> {
  const { root, workdir, cert, key } = options;
  const port = await freePort();
  const nginx = await runNginx(
    `  types { application/json json; application/vnd.pkg.package cap; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${cert};
    ssl_certificate_key ${key};
    root ${root};
${options.locations ?? ''}
  }`,
    workdir,
    port,
  );
  return { url: `https://127.0.0.1:${port}`, port, stop: nginx.stop };
}

/**
 * nginx in the foreground as a child of the test, with `http` (the inside of its http
 * block) and every path it writes inside `workdir`; resolves once `port` accepts.
 */
export async function runNginx(http: string, workdir: string, port: number): Promise<{ stop(): Promise<void> }> {
  const temp = join(workdir, 'nginx');
  mkdirSync(temp, { recursive: true });
  const conf = join(temp, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
master_process off;
pid ${temp}/nginx.pid;
error_log ${temp}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
${http}
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-c', conf, '-p', temp], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
