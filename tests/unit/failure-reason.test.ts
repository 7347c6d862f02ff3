// The server's reason for a failed response, from its status and body, counted per reason with a cap
// on distinct reasons, and said in the answer's words.
import { describe, expect, it } from 'vitest';
import { addReason, failureReason, MAX_REASONS, mergeReasons, OTHER, reasonsText } from '../../src-main/common/failure-reason.ts';

describe('a failed response’s reason', () => {
  it('reads a JSON error’s message, a text body’s first line, and nothing from an HTML page', () => {
    expect(failureReason(503, '{"error":"sorry, too many clients already"}')).toBe('503 sorry, too many clients already');
    expect(failureReason(500, '{"error":{"message":"connect ECONNREFUSED 172.18.0.2:5432"}}')).toBe(
      '500 connect ECONNREFUSED 172.18.0.2:5432',
    );
    expect(failureReason(502, 'upstream timed out\nat line 2')).toBe('502 upstream timed out');
    expect(failureReason(500, '<!DOCTYPE html><html><body>Internal</body></html>')).toBe('500');
    expect(failureReason(404, '')).toBe('404');
    expect(failureReason(500, '{not json')).toBe('500 {not json');
    expect(failureReason(500, 'x'.repeat(300))).toHaveLength(4 + 120);
  });

  it('keeps at most five distinct reasons; the rest are counted under "other", none lost', () => {
    const into: Record<string, number> = {};
    for (let i = 0; i < 8; i++) addReason(into, `500 reason ${i}`, i + 1);
    addReason(into, '500 reason 0', 10);
    expect(Object.keys(into)).toHaveLength(MAX_REASONS + 1);
    expect(into['500 reason 0']).toBe(11);
    expect(into[OTHER]).toBe(6 + 7 + 8);
    expect(Object.values(into).reduce((a, b) => a + b, 0)).toBe(36 + 10);
  });

  it('adds cells together and says the two most frequent, quoted with their counts', () => {
    const all = mergeReasons([{ '503 sorry, too many clients already': 1500 }, undefined, { '503 sorry, too many clients already': 2, '500': 3 }]);
    expect(reasonsText(all)).toBe(': 503 "sorry, too many clients already" (1,502), 500 (3)');
    expect(reasonsText({})).toBe('');
    expect(reasonsText({ [OTHER]: 4 })).toBe('');
  });
});
