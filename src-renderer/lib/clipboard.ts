/**
 * Copies text to the clipboard. The async Clipboard API first (a secure context: `serve` on
 * localhost, the app:// scheme); where it is missing or refused (the desktop shell denies every
 * permission request, old browsers) the classic way: a hidden textarea, selected, and the copy
 * command, which needs no permission inside a click. Resolves true when either worked.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // refused: fall through to the copy command
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  const focused = document.activeElement as HTMLElement | null;
  document.body.append(area);
  area.focus();
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  focused?.focus(); // the keyboard user stays on the Copy button
  return ok;
}
