/**
 * Whether a server answers a `_redirects` file's rules, asked the way a browser would. `dev` uses it
 * after a rebuild changed the file: wrangler re-reads it only on an event of the one file it watches,
 * and can lose that watch (see dev.ts, nudgeRoutingFiles), which no write to the file can repair.
 */
export interface LiteralRedirect {
  from: string;
  to: string;
  status: number;
}

/**
 * The rules of `text` that a request can check as they are: a literal source (no splat, placeholder or
 * query) that no earlier rule could match first (Pages applies the first match), a redirect status (a
 * 200 rewrite answers with the page itself), and not already in `before`.
 */
export function newLiteralRedirects(before: string, text: string): LiteralRedirect[] {
  const old = new Set(ruleLines(before));
  const rules: LiteralRedirect[] = [];
  const seen = new Set<string>();
  let patterns = false;
  for (const line of ruleLines(text)) {
    const [from, to, status = '302'] = line.split(/\s+/);
    const literal = from?.startsWith('/') === true && !/[*:?]/.test(from);
    const first = literal && !patterns && !seen.has(from);
    if (from !== undefined) seen.add(from);
    if (!literal) patterns = true;
    if (old.has(line) || !first || !to) continue;
    const code = Number(status.replace(/!$/, ''));
    if (![301, 302, 303, 307, 308].includes(code)) continue;
    rules.push({ from, to, status: code });
  }
  return rules;
}

function ruleLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Whether `origin` answers every rule with its status and target (never following the redirect). */
export async function redirectsServed(
  origin: string,
  rules: readonly LiteralRedirect[],
  timeoutMs = 2000,
): Promise<boolean> {
  for (const rule of rules) {
    try {
      const response = await fetch(new URL(rule.from, origin), {
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      const location = response.headers.get('location') ?? '';
      if (response.status !== rule.status || !sameTarget(location, rule.to, origin)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function sameTarget(location: string, to: string, origin: string): boolean {
  try {
    return new URL(location, origin).href === new URL(to, origin).href;
  } catch {
    return location === to;
  }
}
