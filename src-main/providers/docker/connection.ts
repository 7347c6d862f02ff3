// A Docker engine reached by a DOCKER_HOST-style URL: unix socket, tcp (plain, or TLS with a
// certificate folder), or ssh. One dockerode client per connection, as Podman Desktop does.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import Docker from 'dockerode';

export interface DockerConnection {
  /** unix:///var/run/docker.sock, tcp://host:2375, tcp://host:2376 (TLS), ssh://user@host[:port]. */
  url: string;
  /**
   * A folder holding ca.pem, cert.pem and key.pem (Docker's DOCKER_CERT_PATH layout), for tcp with
   * TLS. Only the path is stored: keys stay in their files, never in the history database.
   */
  tlsDir?: string;
  /** ssh: a private key file (else the ssh agent, SSH_AUTH_SOCK). */
  sshKeyFile?: string;
}

/** A URL or TLS folder that cannot work, in words, before anything connects. */
export class ConnectionInputError extends Error {
  readonly code = 'BAD_CONNECTION';
}

/** The address a published port is reached at: the engine's host name, or this machine for a socket. */
export function engineHost(url: string): string {
  const u = new URL(url);
  return u.protocol === 'unix:' ? '127.0.0.1' : u.hostname;
}

export function connect(c: DockerConnection): Docker {
  let u: URL;
  try {
    u = new URL(c.url);
  } catch {
    throw new ConnectionInputError(
      `"${c.url}" is not a Docker engine URL: ` +
        'give unix:///path/to/docker.sock, tcp://host:2375, tcp://host:2376 with a TLS folder, or ssh://user@host',
    );
  }
  switch (u.protocol) {
    case 'unix:':
      return new Docker({ socketPath: u.pathname });
    case 'tcp:': {
      const port = Number(u.port || (c.tlsDir ? 2376 : 2375));
      // No kept-alive sockets: after the network to a host drops and comes back, a pooled socket the
      // engine has meanwhile closed answers the next request with ECONNRESET (Node's default agent keeps them).
      if (!c.tlsDir)
        return new Docker({
          host: u.hostname,
          port,
          protocol: 'http',
          agent: new http.Agent({ keepAlive: false }),
        } as Docker.DockerOptions);
      const read = (f: string): Buffer => {
        try {
          return readFileSync(path.join(c.tlsDir!, f));
        } catch (e) {
          throw new ConnectionInputError(
            `TLS: cannot read ${path.join(c.tlsDir!, f)} ` +
              `(${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); ` +
              'the folder must hold ca.pem, cert.pem and key.pem',
          );
        }
      };
      return new Docker({
        host: u.hostname,
        port,
        protocol: 'https',
        ca: read('ca.pem'),
        cert: read('cert.pem'),
        key: read('key.pem'),
        agent: new https.Agent({ keepAlive: false, ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') }),
      } as Docker.DockerOptions);
    }
    case 'ssh:': {
      const sshOptions: Record<string, unknown> = c.sshKeyFile
        ? { privateKey: readFileSync(c.sshKeyFile) }
        : { agent: process.env.SSH_AUTH_SOCK };
      return new Docker({
        host: u.hostname,
        port: Number(u.port || 22),
        username: u.username || undefined,
        protocol: 'ssh',
        sshOptions,
      } as Docker.DockerOptions);
    }
    default:
      throw new ConnectionInputError(`"${u.protocol}" engines are not supported: use unix://, tcp:// or ssh://`);
  }
}

/** What went wrong reaching an engine, in the words a user can act on. */
export function connectionProblem(url: string, e: unknown): string {
  const err = e as NodeJS.ErrnoException & { statusCode?: number; reason?: string };
  const why = err.message ?? String(e);
  if (err.code === 'ECONNREFUSED')
    return `unreachable: nothing answers at ${url} (is the engine running and listening there?)`;
  if (err.code === 'ENOENT' || err.code === 'EACCES')
    return err.code === 'EACCES' ? `permissions: cannot open ${url} (${why})` : `unreachable: no socket at ${url}`;
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return `unreachable: the host name in ${url} does not resolve`;
  if (err.code === 'ETIMEDOUT' || err.code === 'EHOSTUNREACH' || err.code === 'ENETUNREACH' || /after \d+ ms/.test(why))
    return `unreachable: ${url} did not answer in time (${why})`;
  if (/certificate|SSL|TLS|EPROTO|self.signed/i.test(`${err.code ?? ''} ${why}`))
    return `TLS: ${why} (check the TLS folder's ca.pem, cert.pem and key.pem)`;
  if (err.statusCode === 401 || err.statusCode === 403)
    return `permissions: the engine refused (${err.statusCode}): ${err.reason ?? why}`;
  if (/authentication|All configured authentication methods failed/i.test(why))
    return `permissions: ssh authentication failed (${why})`;
  return `unreachable: ${why}`;
}
