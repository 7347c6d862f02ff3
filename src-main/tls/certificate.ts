// The certificate a run's HTTPS servers present: self-signed, made once per run (RSA 2048 and SHA-256, so the
// handshake is the ECDHE-RSA one seed 001 measured) with the selfsigned library, and given to the built-in apps'
// processes through their environment. The load side does not verify it: it sizes the server, not a PKI.
import type { CellLoad } from '../model/cell-load.ts';

// selfsigned (and its X.509 library) loads on first need: imported at the top, every CLI start paid ~100 ms for it.

export interface Pem {
  cert: string;
  key: string;
}

/** The variables a built-in app reads its certificate and key from (apps/_lib/http-app.js). */
export const TLS_ENV = { cert: 'RS_TLS_CERT', key: 'RS_TLS_KEY' } as const;

const byRun = new Map<string, Promise<Pem>>();

/** The run's certificate, made on first need (about 0.2 s); `run` '' (a cell outside a run) gets one of its own. */
export function runCertificate(run: string): Promise<Pem> {
  let pem = byRun.get(run);
  if (!pem) {
    const notAfterDate = new Date(Date.now() + 2 * 86_400_000); // a run's certificate outlives no run
    pem = import('selfsigned')
      .then(({ generate }) =>
        generate([{ name: 'commonName', value: 'rightsize' }], {
          keyType: 'rsa',
          keySize: 2048,
          algorithm: 'sha256',
          notAfterDate,
        }),
      )
      .then((p) => ({ cert: p.cert, key: p.private }));
    pem.catch(() => byRun.delete(run));
    byRun.set(run, pem);
  }
  return pem;
}

/** The environment that makes a built-in app serve HTTPS with `pem`. */
export const tlsEnv = (pem: Pem): Record<string, string> => ({ [TLS_ENV.cert]: pem.cert, [TLS_ENV.key]: pem.key });

/** The variable a built-in app reads its HTTP version from: "h2" (TLS, HTTP/1.1 beside it), "h2c"; absent: HTTP/1.1. */
export const PROTOCOL_ENV = 'RS_PROTOCOL';

/** What a built-in app is told of its cell's link: the run's certificate (HTTPS, h2) and its HTTP version. */
export const linkEnv = (load: Pick<CellLoad, 'tls' | 'protocol'>, pem: Pem | undefined): Record<string, string> => {
  if (load.tls && !pem) throw new Error("an HTTPS cell needs the run's certificate (none was made)");
  return { ...(load.tls ? tlsEnv(pem!) : {}), ...(load.protocol ? { [PROTOCOL_ENV]: load.protocol } : {}) };
};

/** The target's side of the same: how its readiness is asked. */
export const linkSpec = (load: Pick<CellLoad, 'tls' | 'protocol'>): { tls?: boolean; protocol?: 'h2' | 'h2c' } => ({
  ...(load.tls ? { tls: true } : {}),
  ...(load.protocol ? { protocol: load.protocol } : {}),
});
