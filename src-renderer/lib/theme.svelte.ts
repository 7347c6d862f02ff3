// The OS light/dark setting, as state the charts can follow.
const query = window.matchMedia('(prefers-color-scheme: dark)');
export const theme = $state({ dark: query.matches });
query.addEventListener('change', (e) => (theme.dark = e.matches));
