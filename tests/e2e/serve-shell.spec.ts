import { expect, test } from './fixtures';

test('the served UI reaches the engine over HTTP and its stream socket', async ({ page, served }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(served.loginUrl);
  await expect(page).toHaveURL(`${served.url}/`); // the token left the address bar for a cookie
  await expect(page.getByTestId('transport')).toHaveText('via http');
  await expect(page.getByTestId('engine')).toContainText(/Docker .* · \d+ cores/); // from the engine.status stream
  expect(errors).toEqual([]);
});

test('a page without the token is refused', async ({ page, served }) => {
  const res = await page.goto(served.url);
  expect(res?.status()).toBe(401);
  await expect(page.locator('body')).toContainText('open the URL that `rightsize serve` printed');
});
