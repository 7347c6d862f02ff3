// Draws the app icon (a rounded tile with three rising bars: the sizing steps) as a PNG, so the
// icon can be regenerated without an image editor: node scripts/make-icon.mjs
import { writeFileSync, mkdirSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, pixel) {
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) raw.set(pixel(x / size, y / size), y * (size * 4 + 1) + 1 + x * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
const inRounded = (u, v, r) => {
  const dx = Math.max(r - u, 0, u - (1 - r));
  const dy = Math.max(r - v, 0, v - (1 - r));
  return dx * dx + dy * dy <= r * r;
};
const bars = [[0.22, 0.62], [0.42, 0.46], [0.62, 0.28]]; // x start, top
function pixel(u, v) {
  const m = 0.06;
  if (!inRounded((u - m) / (1 - 2 * m), (v - m) / (1 - 2 * m), 0.2) || u < m || v < m || u > 1 - m || v > 1 - m) return [0, 0, 0, 0];
  for (const [x, top] of bars) if (u >= x && u <= x + 0.15 && v >= top && v <= 0.78) return [255, 255, 255, 255];
  const t = v; // vertical gradient, blue
  return [Math.round(45 + 20 * t), Math.round(108 - 30 * t), Math.round(223 - 40 * t), 255];
}
mkdirSync('resources/icons', { recursive: true });
for (const size of [512, 256]) writeFileSync(`resources/icons/${size === 512 ? 'icon' : `icon-${size}`}.png`, png(size, pixel));
console.log('wrote resources/icons/icon.png (512) and icon-256.png');
