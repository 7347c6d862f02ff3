// A container's output as Docker's attach API streams it, split back into stdout and stderr as it arrives.
/**
 * Docker's multiplexed attach stream (no TTY): frames of an 8-byte header (stream type, 3 zero
 * bytes, payload size, big-endian) and the payload; a frame may be split across chunks.
 */
export class FrameSplitter {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (kind: 'stdout' | 'stderr', payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (this.buf.length >= 8) {
      const size = this.buf.readUInt32BE(4);
      if (this.buf.length < 8 + size) return;
      const payload = this.buf.subarray(8, 8 + size);
      this.onFrame(this.buf[0] === 2 ? 'stderr' : 'stdout', payload);
      this.buf = this.buf.subarray(8 + size);
    }
  }
}
