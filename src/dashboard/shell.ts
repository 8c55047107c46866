// The page every /ui/ route answers with (docs/dashboard.md §1): it loads the bundled script and stylesheet, which
// draw the page the URL's hash names. Nothing inline: the Content-Security-Policy allows only our own files. The empty
// icon keeps the browser from asking for /favicon.ico, which is ARM's path space (a 401 in the console otherwise).
export const SHELL_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>aksemu</title>
<link rel="stylesheet" href="/ui/assets/app.css">
<link rel="icon" href="data:,">
<script type="module" src="/ui/assets/app.js"></script>
</head>
<body>
<main id="app"><p>Loading the aksemu dashboard…</p></main>
</body>
</html>
`;

/** A page for a signed-out browser: what to run to get in. */
export function signInPage(message: string): string {
  const text = message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>aksemu: sign in</title></head>
<body><main><h1>Sign in to aksemu</h1><p>${text}</p></main></body>
</html>
`;
}
