// The `rightsize apps` command tree: list, add, edit, rm, try, build (the actions live in commands/apps.ts).
import type { Command } from 'commander';
import {
  appsAddCommand,
  appsBuildCommand,
  appsEditCommand,
  appsListCommand,
  appsRemoveCommand,
  appsTryCommand,
  type AppOptions,
} from './commands/apps.ts';
import type { GlobalOptions } from './context.ts';

export function appsCommands(p: Command, globals: () => GlobalOptions): void {
  const apps = p.command('apps').description('the target apps: the built-in ones and your own (add, edit, rm, build)');
  apps
    .command('list', { isDefault: true })
    .description('list the built-in apps and yours')
    .action(async () => {
      process.exitCode = await appsListCommand(globals());
    });
  const collect = (v: string, prev: string[] = []): string[] => [...prev, v];
  const appOptions = (c: Command): Command =>
    c
      .option(
        '--compose <file>',
        "your Compose file: the --service's build or image, port, health check, environment, " +
          'and the services it depends on (started fresh beside it for every cell)',
      )
      .option('--service <name>', 'the Compose service to size (with --compose)')
      .option(
        '--folder <dir>',
        "a Node.js project folder, built with its own Dockerfile when it has one, else on Rightsize's base " +
          '(.dockerignore respected)',
      )
      .option('--dockerfile <file>', 'the Dockerfile to build the folder with (default: Dockerfile)')
      .option('--build-arg <NAME=value>', 'a build argument for the Dockerfile (repeat)', collect)
      .option(
        '--base <rightsize|dockerfile>',
        "rightsize: build the folder on Rightsize's base (launch modes, Node.js versions) even if it has a Dockerfile",
      )
      .option(
        '--entry <file>',
        'the file that starts the server, relative to the folder (default: from ecosystem.config.js)',
      )
      .option('--arg <value>', 'a start argument for the entry file (repeat for several)', collect)
      .option('--ecosystem <file>', 'a PM2 ecosystem file in the folder to read entry, args and env from')
      .option('--ecosystem-app <name>', 'which app of the ecosystem file (default: the first)')
      .option('--image <name>', 'an existing image (local, or pulled) that starts the server itself')
      .option('--workers-env <VAR>', 'the variable the image reads its worker count from, e.g. WEB_CONCURRENCY')
      .option('--fixed', 'the image has a fixed worker count: the workers dimension does not apply')
      .option('--port <n>', 'the port the server listens on')
      .option('--health <path>', 'readiness path answering 2xx (default /)')
      .option(
        '--tls',
        "it serves HTTPS itself: measured over TLS, given the run's certificate in RS_TLS_CERT and RS_TLS_KEY (PEM)",
      )
      .option('--no-tls', 'it serves plain HTTP (an edit of an app added with --tls)')
      .option(
        '--http2 <h2|h2c>',
        'it serves HTTP/2 itself: h2 over TLS with HTTP/1.1 beside it (with --tls), or h2c in clear only',
      )
      .option('--no-http2', 'it serves HTTP/1.1 only (an edit of an app added with --http2)')
      .option('--env <NAME=value>', 'environment for the server (repeat)', collect)
      .option(
        '--request <spec>',
        'a request to send: "METHOD /path [status] [body]" (repeat: sent in sequence)',
        collect,
      )
      .option(
        '--requests <file>',
        'requests as a JSON array of {method, path, headers, body, status, weight, name} and {sequence: [...]} ' +
          '(docs/mixes.md)',
      )
      .option('--requests-from <file>', 'a weighted mix made from a HAR file or an access log (shown before saving)')
      .option('--keep-static', 'with --requests-from: keep static assets (.js, .css, images, fonts)')
      .option('--all-hosts', 'with --requests-from: keep requests to other hosts than the most frequent')
      .option('--description <text>', 'what the app is')
      .option('--from <file>', 'the whole definition as JSON (options given as well override it)')
      .option('--check', 'only check: report problems, save nothing')
      .option('--build', 'build the image right after saving, showing the build log')
      .option(
        '--try',
        'after saving, build it, start it once and ask its health path and each request (default in a terminal)',
      )
      .option('--no-try', 'do not try the app after saving');
  appOptions(
    apps
      .command('add <name>')
      .description(
        'add your own app (a Compose service, a project folder or an image); every problem is reported, ' +
          'nothing saved until all are fixed',
      ),
  ).action(async (name: string, o: AppOptions) => {
    process.exitCode = await appsAddCommand(name, { ...globals(), ...o });
  });
  appOptions(apps.command('edit <name>').description('change your app: only the options given change'))
    .option('--rename <new-name>', 'give it a new name')
    .action(async (name: string, o: AppOptions) => {
      process.exitCode = await appsEditCommand(name, { ...globals(), ...o });
    });
  apps
    .command('rm <name>')
    .description('remove your app (runs that used it keep a copy of its definition)')
    .option('-y, --yes', 'confirm')
    .action(async (name: string, o: AppOptions) => {
      process.exitCode = await appsRemoveCommand(name, { ...globals(), ...o });
    });
  apps
    .command('try <name>')
    .description(
      'build the app, start it once and ask its health path and each request: what answered, and what to change ' +
        '(exit 5 when something did not answer as expected)',
    )
    .action(async (name: string) => {
      process.exitCode = await appsTryCommand(name, globals());
    });
  apps
    .command('build <name>')
    .description("build (or find up to date) an app's image now, with its build log")
    .action(async (name: string) => {
      process.exitCode = await appsBuildCommand(name, globals());
    });
}
