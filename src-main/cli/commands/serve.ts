import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isLoopback, startServer } from '../../transports/http-server.ts';
import { projectRoot } from '../../util/paths.ts';
import { openLab, type GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../exit-codes.ts';

export interface ServeCommandOptions extends GlobalOptions {
  host?: string;
  port?: string;
}

/** The login URL with the host's name and each external IPv4 address in place of the wildcard. */
function lanUrls(loginUrl: string): string[] {
  const hosts = [
    os.hostname(),
    ...Object.values(os.networkInterfaces()).flatMap((l) =>
      (l ?? []).filter((a) => !a.internal && a.family === 'IPv4').map((a) => a.address),
    ),
  ];
  return [...new Set(hosts)].map((h) => {
    const u = new URL(loginUrl);
    u.hostname = h;
    return u.toString();
  });
}

/** `rightsize serve`: the desktop UI in a browser, for a lab machine without a display. Runs until Ctrl-C. */
export async function serveCommand(o: ServeCommandOptions): Promise<number> {
  const port = o.port === undefined ? 5180 : Number(o.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CliError('--port takes a number from 0 to 65535 (0: any free port).', EXIT.usage);
  const host = o.host ?? '127.0.0.1';
  const staticDir = path.join(projectRoot(), 'dist', 'renderer');
  // The API works without it, but the page would only say so: tell the person at the terminal now.
  if (!existsSync(path.join(staticDir, 'index.html')))
    process.stderr.write(
      'warning: the UI is not built, so the page will only say so. ' +
        'Stop this and run `npm run serve` from the Rightsize folder: it builds first.\n',
    );
  const lab = await openLab(o, (line) => void process.stderr.write(`${line}\n`));
  let server;
  try {
    server = await startServer({ lab, host, port, staticDir });
  } catch (e) {
    await lab.close();
    throw new CliError(`Cannot listen on ${host}:${port}: ${(e as Error).message}`, EXIT.error);
  }
  if (!isLoopback(host)) {
    process.stderr.write(
      `warning: listening on ${host}, not just this machine. ` +
        'Anyone who can reach it and has the token can start containers here.\n',
    );
    // http://0.0.0.0:port works on no other machine: name the addresses others can use.
    if (host === '0.0.0.0' || host === '::')
      for (const u of lanUrls(server.loginUrl)) process.stderr.write(`From another machine: ${u}\n`);
  }
  const status = lab.handlers['engine.status']({}) as { docker: { ok: boolean; error?: string } };
  if (!status.docker.ok) process.stderr.write(`warning: ${status.docker.error}\n`);
  process.stdout.write(
    o.json
      ? `${JSON.stringify({ url: server.url, loginUrl: server.loginUrl })}\n`
      : `Rightsize is at ${server.loginUrl}\nCtrl-C to stop.\n`,
  );
  await new Promise<void>((resolve) => {
    // SIGHUP too: a closed terminal must cancel the run and remove its container like Ctrl-C.
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    const stop = (): void => {
      for (const s of signals) process.off(s, stop);
      resolve();
    };
    for (const s of signals) process.on(s, stop);
  });
  process.stderr.write('Stopping: cancelling any run and removing its container…\n');
  await server.close();
  await lab.close();
  return EXIT.ok;
}
